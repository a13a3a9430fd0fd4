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

/**
 * A chat whose tool read `log` (a system prompt, the ask, the call, its `role: "tool"` result, the assistant's
 * words) and then asks the question `EVIDENCE` answers.
 */
export function syslogToolChat(log = syslogText(3000, 1700)): Record<string, unknown>[] {
  return [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Show me the system log of the server.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{"path":"/log"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: log },
    { role: 'assistant', content: 'The log shows routine session starts and one kernel warning.' },
    { role: 'user', content: 'Which controller overheated, and what was its error code?' },
  ];
}
