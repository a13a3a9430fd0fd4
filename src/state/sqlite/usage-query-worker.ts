/**
 * Worker thread answering the SQLite ledger's read queries (summaries, pages, scans) on its
 * own read-only connection (WAL lets it read while the main thread writes), so a long
 * /usage never holds the server's event loop. Messages: {id, op, args} in; {id, result} |
 * {id, error} | {id, chunk} out; a scan waits for {id, op: 'next'} after each chunk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SqliteUsageStore } from './sqlite-usage-store.js';

const db = new Database((workerData as { file: string }).file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const store = new SqliteUsageStore(db, (step) => step(), { readOnly: true });
const waiting = new Map<number, () => void>();
parentPort!.postMessage({ ready: true });

parentPort!.on('message', (message: { id: number; op: string; args: unknown[] }) => {
  if (message.op === 'next') return waiting.get(message.id)?.();
  void answer(message);
});

async function answer({ id, op, args }: { id: number; op: string; args: unknown[] }): Promise<void> {
  try {
    let result: unknown;
    if (op === 'summarize') result = await store.summarize(args[0] as never, args[1] as never);
    else if (op === 'latest')
      result = await store.latest(args[0] as never, args[1] as number, args[2] as string | undefined);
    else if (op === 'scan') {
      await store.scan(
        args[0] as never,
        (chunk) =>
          new Promise<void>((resolve) => {
            waiting.set(id, resolve);
            parentPort!.postMessage({ id, chunk });
          }),
      );
      waiting.delete(id);
    } else throw new Error(`unknown usage query ${op}`);
    parentPort!.postMessage({ id, result });
  } catch (error) {
    const { name, message, code, fields } = error as Error & { code?: string; fields?: unknown };
    parentPort!.postMessage({ id, error: { name, message, code, fields } });
  }
}
