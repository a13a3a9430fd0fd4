import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { createContextFilter } from '../../src/features/context/context-filter.js';
import { openSqliteDatabase } from '../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';
import type { HostServices } from '../../src/runtime/host/types.js';
import { faithfulSummary, orderChat } from '../compress/helpers/order-chat.js';
import { startLoopback, type LoopbackServer } from '../llm/helpers/loopback-openai.js';
import { hookArgs, realServices } from '../usage/helpers/hook-args.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-context-instances-'));
const file = path.join(root, 'state.db');
const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger: silentLogger() });
let services: HostServices;
let server: LoopbackServer;
/** The first model call waits for this gate, so an ahead-of-time job is in flight while the test acts. */
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});

beforeAll(async () => {
  ({ services } = await realServices(store, root));
  server = await startLoopback(async (seen, n) => {
    if (n === 1) await gate;
    return faithfulSummary(seen);
  });
});
afterAll(async () => {
  openGate();
  await server.close();
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let round = 0; round < 1000; round++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describe('two context filters in one process', () => {
  it("share nothing: closing one leaves the other's ahead-of-time summaries running", async () => {
    const first = createContextFilter();
    const second = createContextFilter();
    const chatKey = 'chat:instances';
    const valves = {
      max_tokens: 800,
      summary_min_budget: 0,
      weighting: 'static',
      summary_base_url: server.url,
      summary_model: 'mini',
      ahead_of_time: true,
    };
    const args = (hook: 'inlet' | 'outlet', messages: ChatMessage[]) =>
      hookArgs(first, {
        body: { model: 'gpt-4o', messages },
        store,
        services,
        valves,
        chatKey,
        hook,
        filterId: 'context',
      }) as never;
    const history: ChatMessage[] = [
      ...orderChat(15, 'how are the orders going?'),
      { role: 'assistant', content: 'all orders are on track and nothing needs your attention right now' },
    ];
    await first.outlet!(args('outlet', history));
    await until(() => server.chatCalls() >= 1, "the first filter's ahead-of-time job calls the model");
    // The other filter's shutdown must not reach the first one's runner or model clients.
    await second.onShutdown!({} as never);
    openGate();
    await until(async () => {
      const lease = await store.acquireLease(`f:context:aot:${chatKey}`, 1000);
      await lease?.release();
      return lease !== undefined && lease !== null;
    }, 'the ahead-of-time job ends');
    const before = server.chatCalls();
    const next = (await first.inlet!(
      args('inlet', [...history, { role: 'user', content: 'how are the payments going?' }]),
    )) as { messages: { role: string; content: string }[] };
    // The job finished its summaries (the next inlet finds them cached); an aborted job would have left none.
    expect(server.chatCalls() - before).toBe(0);
    expect(next.messages.some((message) => message.content.startsWith('[Earlier in this conversation'))).toBe(true);
    await first.onShutdown!({} as never);
  });
});
