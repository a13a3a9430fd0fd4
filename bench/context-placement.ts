/**
 * What the context filter's placement costs a chat's inlet over HTTP: three servers in this process, the context
 * filter in the main thread (FILTER_ISOLATION_OVERRIDES=context=main), as placed by default (FILTER_ISOLATION=auto:
 * the main thread, chats past 1,000 messages or 256 Ki characters in a worker of its own) and in a worker thread for
 * every chat (context=worker), sent the same warm turns alternately, call by call (the previous turn first, so token
 * counts are cached, as in a running chat). Prints each size's medians and the median of per-turn ratios to the main
 * thread. PLACEMENT_SIZES (20,50,200,2000), PLACEMENT_TURNS (60) per size.
 * Run: node --import tsx bench/context-placement.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveRuntime, type ServedRuntime } from './lib/serve-runtime.js';
import { conversationOfSize } from './lib/sized-conversation.js';
import { markdownTable } from './lib/table.js';
import type { ChatMessage } from './lib/chat-message.js';
import { tuneV8 } from '../src/core/util/v8-tuning.js';

const SIZES = (process.env.PLACEMENT_SIZES ?? '20,50,200,2000').split(',').map(Number);
const TURNS = Number(process.env.PLACEMENT_TURNS ?? 60);
tuneV8();

async function serve(overrides: string): Promise<{ served: ServedRuntime; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-bench-placement-'));
  mkdirSync(path.join(dir, 'valves'), { recursive: true });
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  writeFileSync(path.join(dir, 'valves', 'context.json'), JSON.stringify({ max_tokens: 2000 }));
  const { loadConfig } = await import('../src/core/config.js');
  const { createRuntime } = await import('../src/compose.js');
  const { createLogger } = await import('../src/core/util/logger.js');
  const config = loadConfig({
    PIPELINES_API_KEY: 'bench-key',
    DATA_DIR: path.join(dir, 'data'),
    VALVES_DIR: path.join(dir, 'valves'),
    FILTERS_DIR: fileURLToPath(new URL('../filters', import.meta.url)),
    PRICING_FETCH: 'false',
    WATCH_FILTERS: 'false',
    LOG_LEVEL: 'silent',
    ...(overrides ? { FILTER_ISOLATION_OVERRIDES: overrides } : {}),
  });
  const runtime = await createRuntime({ config, logger: createLogger({ level: 'silent' }), watch: false });
  return { served: await serveRuntime(runtime, 'bench-key', dir), dir };
}

const payload = (messages: ChatMessage[], chat: string) =>
  JSON.stringify({
    user: { id: 'bench', role: 'user' },
    body: { model: 'gpt-4o', messages, metadata: { chat_id: chat } },
  });

async function post(served: ServedRuntime, body: string): Promise<number> {
  const begin = performance.now();
  const { status, text } = await served.client.post('/context/filter/inlet', body);
  if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
  return performance.now() - begin;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const placements = [
  ['main thread (context=main)', 'context=main'],
  ['default (auto: large chats in a worker)', ''],
  ['worker (context=worker)', 'context=worker'],
] as const;
const servers = [] as Array<{ served: ServedRuntime; dir: string }>;
for (const [, overrides] of placements) servers.push(await serve(overrides));
await new Promise((resolve) => setTimeout(resolve, 2000));
const rows: string[][] = [];
try {
  for (const size of SIZES) {
    const times = servers.map(() => [] as number[]);
    const ratios = servers.map(() => [] as number[]);
    for (let turn = -5; turn < TURNS; turn++) {
      const messages = conversationOfSize(size * 1000 + turn + 10, size + 2);
      const chat = `c${size}-${turn}`;
      const previous = payload(messages.slice(0, size), chat);
      const next = payload(messages, chat);
      const measured: number[] = [];
      // A different server first on each turn.
      for (let step = 0; step < servers.length; step++) {
        const index = (turn + 5 + step) % servers.length;
        await post(servers[index]!.served, previous);
        measured[index] = await post(servers[index]!.served, next);
      }
      if (turn < 0) continue; // warm-up turns
      measured.forEach((ms, index) => {
        times[index]!.push(ms);
        ratios[index]!.push(ms / measured[0]!);
      });
    }
    placements.forEach(([label], index) =>
      rows.push([
        String(size),
        label,
        `${median(times[index]!).toFixed(2)} ms`,
        index === 0 ? '—' : `${((median(ratios[index]!) - 1) * 100).toFixed(1)} %`,
      ]),
    );
  }
  console.log(`\n### The context inlet over HTTP, warm turns, by placement (${TURNS} turns each, alternately)\n`);
  console.log(
    markdownTable(['messages', 'context filter', 'median', 'vs main thread (median of per-turn ratios)'], rows),
  );
} finally {
  for (const target of servers) {
    await target.served.close();
    rmSync(target.dir, { recursive: true, force: true });
  }
}
