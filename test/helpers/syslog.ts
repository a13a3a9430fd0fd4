/** The one line of a system log that answers "which controller overheated, and what was its error code?". */
export const EVIDENCE = 'Dec 04 11:02:17 host kernel: nvme0n1: controller overheated, throttling (error code E4217)';

/**
 * A system log of `lines` routine systemd lines with `EVIDENCE` at line `at`: the long tool output the trimming and
 * echo tests read. Its minutes count up from 11:00 (wrapping at 60), or stay at 11:00 with `sameMinute`.
 */
export function syslogText(lines: number, at: number, options: { sameMinute?: boolean } = {}): string {
  return Array.from({ length: lines }, (_, index) => {
    if (index === at) return EVIDENCE;
    const minute = options.sameMinute ? '00' : String(index % 60).padStart(2, '0');
    return `Dec 04 11:${minute}:00 host systemd[1]: Started session ${index} of user root.`;
  }).join('\n');
}
