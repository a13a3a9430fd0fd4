/**
 * What one request may cost the event loop, over real HTTP on 127.0.0.1 (a child server process, SQLite state in a
 * temp dir): one client sends one large body at a time while another process polls `GET /` (2 ms apart), and the
 * probe's p50/max is printed with the request's status and time. Bodies:
 * - a chat of `EVENTLOOP_MESSAGES` (500,000) short messages (≈ 22.6 MB) and a body whose `metadata` holds an object
 *   of `EVENTLOOP_KEYS` (1,000,000) keys: past the default limits (JSON_MAX_MESSAGES, JSON_MAX_KEYS), answered 413;
 * - the largest accepted bodies: a chat of exactly JSON_MAX_MESSAGES short messages, `metadata` with keys up to
 *   JSON_MAX_KEYS in all, and a chat of JSON_MAX_MESSAGES messages of 4,800 characters each (48 MB, under BODY_LIMIT);
 * each through a filter in the server's thread that passes the body on (system-prefix without a prefix), the context
 * filter as shipped (FILTER_ISOLATION=auto: the server's thread, chats past 1,000 messages or 256 Ki characters in a
 * worker of its own), the context filter in the server's thread for every chat (a copy of it in FILTERS_DIR placed
 * with FILTER_ISOLATION_OVERRIDES=context-main=main), an uploaded pass-through filter in a worker thread
 * (FILTER_ISOLATION=auto, as deployed), and the context filter in a worker thread for every chat (another copy).
 * BENCH_CODE_ROOT runs it against another checkout (before/after figures); EVENTLOOP_ROUNDS (2) rounds each.
 * Run: npm run bench:load:eventloop (npm run bench:load runs it last)
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable } from './lib/table.js';
import { startBenchServer } from './lib/load/bench-server.js';
import { startProbe, type LoadResult } from './lib/load/run-load.js';
import { pseudoText } from './lib/pseudo-text.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const codeRoot = path.resolve(process.env.BENCH_CODE_ROOT ?? repoRoot);
const MESSAGES = Number(process.env.EVENTLOOP_MESSAGES ?? 500_000);
const KEYS = Number(process.env.EVENTLOOP_KEYS ?? 1_000_000);
const ROUNDS = Number(process.env.EVENTLOOP_ROUNDS ?? 2);
/** The defaults of JSON_MAX_MESSAGES and JSON_MAX_KEYS (src/core/config.ts). */
const MAX_MESSAGES = Number(process.env.JSON_MAX_MESSAGES ?? 10_000);
const MAX_KEYS = Number(process.env.JSON_MAX_KEYS ?? 200_000);
const KEY = 'bench-eventloop-key';

const PASS_THROUGH = `import { defineFilter } from 'eunoe';
export default defineFilter({ name: 'Pass-through', inlet: ({ body }) => body, outlet: ({ body }) => body });
`;

/**
 * `count` messages, alternating user and assistant, the last one from the user: short ones, or `size` characters
 * each of distinct pseudo-words (a long chat of pasted text).
 */
function chat(count: number, size = 0): Array<{ role: string; content: string }> {
  const text = size > 0 ? pseudoText(count * size) : '';
  return Array.from({ length: count }, (_, index) => ({
    role: (count - index) % 2 === 1 ? 'user' : 'assistant',
    content: size > 0 ? text.slice(index * size, (index + 1) * size) : `message number ${index}`,
  }));
}

/** An inlet envelope: `messages`, and `metadata` with `keys` keys of its own (besides the chat id). */
function envelope(messages: number | Array<{ role: string; content: string }>, keys = 0): string {
  const metadata: Record<string, unknown> = { chat_id: 'eventloop' };
  for (let index = 0; index < keys; index++) metadata[`k${index}`] = index;
  return JSON.stringify({
    user: { id: 'bench-eventloop', role: 'user' },
    body: { model: 'gpt-4o', messages: typeof messages === 'number' ? chat(messages) : messages, metadata },
  });
}

/** Keys and array elements of a JSON text (what JSON_MAX_KEYS counts). */
function countEntries(text: string): number {
  let entries = 0;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      entries += value.length;
      for (const item of value) walk(item);
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      entries += keys.length;
      for (const key of keys) walk((value as Record<string, unknown>)[key]);
    }
  };
  walk(JSON.parse(text));
  return entries;
}

const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-bench-eventloop-'));
const filtersDir = path.join(root, 'filters');
mkdirSync(filtersDir, { recursive: true });
writeFileSync(path.join(filtersDir, 'pass-through.ts'), PASS_THROUGH);
// The shipped context filter, as a file of the user's: FILTER_ISOLATION=auto runs it in a worker thread.
copyFileSync(path.join(codeRoot, 'filters/context.ts'), path.join(filtersDir, 'context-worker.ts'));
// The same, placed in the server's thread for every chat.
copyFileSync(path.join(codeRoot, 'filters/context.ts'), path.join(filtersDir, 'context-main.ts'));
const server = await startBenchServer(codeRoot, {
  PIPELINES_API_KEY: KEY,
  SHIPPED_FILTERS: 'context,system-prefix',
  FILTER_ISOLATION: 'auto',
  FILTER_ISOLATION_OVERRIDES: 'context-main=main',
  FILTER_LOAD_TIMEOUT_MS: '60000',
  DATA_DIR: path.join(root, 'data'),
  FILTERS_DIR: filtersDir,
  VALVES_DIR: path.join(root, 'valves'),
});
try {
  const inlet = async (filter: string, body: string) => {
    const begin = performance.now();
    const response = await fetch(`${server.url}/${filter}/filter/inlet`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body,
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - begin };
  };
  const filters = [
    ['system-prefix (main thread)', 'system-prefix'],
    ['context (as shipped)', 'context'],
    ['context (main thread)', 'context-main'],
    ['pass-through (worker)', 'pass-through'],
    ['context (worker)', 'context-worker'],
  ] as const;
  // Warm-up: each filter once with a chat over the context filter's budget (it loads its token ranks and term
  // neighbours on the first chat that needs them, about 0.45 s once per process; the workers start).
  for (const [, filter] of filters) {
    const warm = await inlet(filter, envelope(2_000));
    if (warm.status !== 200) throw new Error(`${filter} warm-up answered ${warm.status}`);
  }
  const bodies = [
    [`${MESSAGES.toLocaleString('en')} messages`, envelope(MESSAGES)],
    [`${KEYS.toLocaleString('en')} keys in metadata`, envelope(2, KEYS)],
    [`${MAX_MESSAGES.toLocaleString('en')} messages (largest accepted)`, envelope(MAX_MESSAGES)],
  ] as Array<[string, string]>;
  // Keys up to the limit in all: the envelope's own entries, the messages' and metadata's, then metadata's own keys.
  const base = countEntries(envelope(2, 0));
  bodies.push([`${MAX_KEYS.toLocaleString('en')} entries (largest accepted)`, envelope(2, MAX_KEYS - base)]);
  bodies.push([
    `${MAX_MESSAGES.toLocaleString('en')} messages of 4,800 characters (largest accepted)`,
    envelope(chat(MAX_MESSAGES, 4_800)),
  ]);
  const rows: string[][] = [];
  for (const [label, body] of bodies) {
    for (const [filterLabel, filter] of filters) {
      const results: LoadResult[] = [];
      const statuses = new Set<number>();
      let ms = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const probe = await startProbe(server.url);
        try {
          const answer = await inlet(filter, body);
          statuses.add(answer.status);
          ms += answer.ms;
        } finally {
          probe.stop();
        }
        results.push(await probe.result);
      }
      rows.push([
        label,
        `${(Buffer.byteLength(body) / 1e6).toFixed(1)} MB`,
        filterLabel,
        [...statuses].join(','),
        fmt(ms / ROUNDS),
        fmt(Math.max(...results.map((result) => result.p50Ms)), 1),
        fmt(Math.max(...results.map((result) => result.maxMs))),
      ]);
    }
  }
  console.log(
    `\n### GET / (1 client, own process) while one large body runs through an inlet (${ROUNDS} rounds each)\n`,
  );
  console.log(
    markdownTable(['body', 'size', 'filter', 'status', 'inlet ms (mean)', 'GET / p50 ms', 'GET / max ms'], rows),
  );
} finally {
  await server.stop();
  rmSync(root, { recursive: true, force: true });
}
