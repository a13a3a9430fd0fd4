import { readFileSync } from 'node:fs';

/** The parent pid of `pid` from /proc (Linux), or undefined when /proc cannot tell. */
export function parentOf(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'busybox']);

/**
 * Call `onGone` once when the process that started this one exits, however it ends (SIGKILL included).
 * Under `npm start`, npm runs the script through `sh -c`, so the shell between npm and this process is
 * skipped: npm itself is watched too. Linux reads /proc (a re-parented process has a new parent pid);
 * elsewhere the parent pid is probed with signal 0. Polls every `intervalMs`; returns a function that stops.
 */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const links: Array<{ child: number | 'self'; parent: number }> = [{ child: 'self', parent: process.ppid }];
  const viaShell = process.env.npm_lifecycle_event !== undefined && SHELLS.has(commandOf(process.ppid));
  const npm = viaShell ? parentOf(process.ppid) : undefined;
  if (npm !== undefined && npm > 1) links.push({ child: process.ppid, parent: npm });
  const hasProc = parentOf('self') !== undefined;
  const gone = () =>
    links.some(({ child, parent }) => {
      if (hasProc) return parentOf(child) !== parent;
      if (child !== 'self') return false;
      try {
        process.kill(parent, 0);
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    });
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
