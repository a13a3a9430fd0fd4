/**
 * What a filter worker takes away from the filter's code before importing it: the calls that end or signal the
 * server's process (or load native code that could), each replaced by a function that throws an error naming the
 * filter. The worker's `process` object is its own (each thread has one), so the main thread keeps the real ones.
 *
 * This is a guard against the easy ways, not a sandbox: a filter can still run a program (`child_process`: `kill -9`
 * on its server), write to /proc/self/mem, or reach a native crash through a bug in Node itself. docs/security.md
 * lists what remains open.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { getSystemErrorName } from 'node:util';

/** Raised when filter code calls a refused function; the hook fails with it (a 500 naming the filter). */
export class RefusedCallError extends Error {
  constructor(filter: string, call: string, why: string) {
    super(
      `Filter ${filter} called ${call}, which filters in worker threads may not use: ${why} (see docs/security.md)`,
    );
    this.name = 'RefusedCallError';
  }
}

const ENDS_PROCESS = 'it would end or signal the server process';

/**
 * `process` functions refused in a filter worker, with why. Not `_fatalException`: Node calls it for every uncaught
 * exception (the worker's handler then logs a stray throw and the worker goes on); it ends the worker at most.
 */
const REFUSED: Record<string, string> = {
  kill: ENDS_PROCESS,
  _kill: ENDS_PROCESS,
  abort: ENDS_PROCESS,
  exit: 'it would end the filter worker (throw an error to fail the call)',
  reallyExit: 'it would end the filter worker (throw an error to fail the call)',
  dlopen: 'native code can end the server process (native addons cannot load in a filter worker)',
  binding: 'it reaches Node internals below the guarded functions',
  _linkedBinding: 'it reaches Node internals below the guarded functions',
};

/**
 * Replace the process-ending calls in this worker thread (before the filter file is imported). `filter()` names the
 * filter in the error (its file name until its id is known). `process.kill(pid, 0)` (does the process exist?) sends
 * no signal and stays allowed. Nested worker threads are refused too (each would start with an unguarded `process`),
 * and so are the inspector's ways to the main thread or the process and V8's run-time flags.
 */
export function guardWorkerProcess(filter: () => string): void {
  const target = process as unknown as Record<string, unknown>;
  // process.kill calls process._kill, replaced below: signal 0 reaches the original directly.
  const rawKill = target._kill as ((pid: number, signal: number) => number) | undefined;
  for (const [name, why] of Object.entries(REFUSED)) {
    if (typeof target[name] !== 'function') continue;
    const refused =
      name === 'kill'
        ? function kill(pid: number, signal?: string | number) {
            if ((signal === 0 || signal === '0') && rawKill) return probe(rawKill, pid);
            throw new RefusedCallError(
              filter(),
              `process.kill(${String(pid)}, ${JSON.stringify(signal ?? 'SIGTERM')})`,
              why,
            );
          }
        : () => {
            throw new RefusedCallError(filter(), `process.${name}()`, why);
          };
    Object.defineProperty(process, name, { value: refused, writable: false, configurable: false, enumerable: false });
  }
  const require = createRequire(import.meta.url);
  const refuse = (holder: object, name: string, call: string, why: string) =>
    Object.defineProperty(holder, name, {
      value: function refused() {
        throw new RefusedCallError(filter(), call, why);
      },
      writable: false,
      configurable: false,
    });
  refuse(
    require('node:worker_threads') as object,
    'Worker',
    'new Worker()',
    'a thread started from a filter would not have these guards',
  );
  // The inspector reaches the main thread (Runtime.evaluate there is the server's own process.kill) or opens a port
  // a debugger can attach to; V8 flags set at run time can crash the process.
  const inspector = require('node:inspector') as { Session: { prototype: object } };
  const mainThread = "it runs code in the server's main thread";
  refuse(inspector.Session.prototype, 'connectToMainThread', 'inspector Session.connectToMainThread()', mainThread);
  for (const module of [inspector, require('node:inspector/promises') as object])
    refuse(module, 'open', 'inspector.open()', 'a debugger attached to the process controls the server');
  refuse(require('node:v8') as object, 'setFlagsFromString', 'v8.setFlagsFromString()', ENDS_PROCESS);
  // `import { Worker } from 'node:worker_threads'` (and the others) in the filter see the replacements too.
  syncBuiltinESMExports();
}

/** `process.kill(pid, 0)`: true when `pid` exists; throws ESRCH or EPERM as Node does. */
function probe(rawKill: (pid: number, signal: number) => number, pid: number): true {
  if (!Number.isInteger(pid)) throw new TypeError(`The "pid" argument must be an integer. Received ${String(pid)}`);
  const status = rawKill(pid, 0);
  if (status) {
    const code = getSystemErrorName(status);
    throw Object.assign(new Error(`kill ${code}`), { code, errno: status, syscall: 'kill' });
  }
  return true;
}
