import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateMessageOrder } from '../../src/domain/engine/index.js';
import { detailsResults } from '../../src/domain/engine/trim/details-blocks.js';
import type { RunHead, RunRecord } from '../../src/features/context/runs/run-record.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { contextInlet, setContextValves } from './helpers/context-http.js';
import { promptTokens, type Message } from './helpers/flag-chats.js';
import { detailsChat, EVIDENCE, QUESTION, toolChat } from './helpers/tool-log-chat.js';

/**
 * Trimming long tool results through the real context filter over HTTP, in both shapes Open WebUI gives an inlet
 * (open-webui/open-webui backend/open_webui/utils/middleware.py, stored at commit 000032ed1cfec98667bbf62795b0f8e0c76025b5;
 * backend/open_webui/utils/misc.py `convert_output_to_messages`): `role: "tool"` messages after an assistant
 * `tool_calls` message (0.10+, expanded from the stored output items before the inlet), and
 * `<details type="tool_calls" … result="…">` blocks inside the assistant's content (0.6.x, `serialize_content_blocks`).
 */
describe('context filter: trimming long tool results over HTTP', () => {
  let runtime: TestRuntime;
  const MAX = 2000;
  const user = { id: 'u-trim', email: 'trim@example.com', name: 'T', role: 'user' };
  const inlet = (messages: Message[], chatId: string) => contextInlet(runtime, messages, chatId, user);
  const outlet = async (history: Message[], chatId: string): Promise<string> => {
    const body = {
      model: 'gpt-4o',
      chat_id: chatId,
      messages: [...history, { role: 'assistant', content: 'nvme0n1.' }],
    };
    const response = await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({ body, user })
      .expect(200);
    return (response.body.messages as Message[]).at(-1)!.content as string;
  };
  const setValves = (values: Record<string, string | number | boolean>) =>
    setContextValves(runtime, { max_tokens: MAX, recent: 2, show_context_note: true, ...values });

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('has the trimming valves, on for tool results by default', async () => {
    const spec = await request(runtime.app).get('/context/valves/spec').set(runtime.auth).expect(200);
    expect(spec.body.properties.trim_tool_results).toMatchObject({ type: 'boolean', default: true });
    expect(spec.body.properties.trim_long_messages).toMatchObject({ type: 'boolean', default: false });
    expect(spec.body.properties.trim_min_tokens).toMatchObject({ default: 1000 });
    expect(spec.body.properties.trim_exclude_tools).toMatchObject({ type: 'string', default: '' });
  });

  it('tool messages: the result is cut to what the question needs, the rest byte for byte, the note says so', async () => {
    await setValves({});
    const history = toolChat();
    const sent = await inlet(structuredClone(history), 'trim-tool');
    expect(validateMessageOrder(sent)).toEqual([]);
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    const tool = sent.find((message) => message.role === 'tool')!;
    expect(tool.tool_call_id).toBe('call_1');
    expect(tool.content).toContain(EVIDENCE);
    expect(tool.content).toMatch(/^… [\d,]+ lines left out …$/m);
    expect(sent.indexOf(tool)).toBe(sent.findIndex((message) => message.tool_calls) + 1);
    for (const message of sent.filter((message) => message !== tool)) expect(history).toContainEqual(message);
    const note = await outlet(history, 'trim-tool');
    expect(note).toMatch(/ · 1 long message trimmed \([\d,]+ lines left out\)/);
  });

  it('Open WebUI tool-call blocks: the result attribute is cut, the block stays well-formed', async () => {
    await setValves({});
    const history = detailsChat();
    const sent = await inlet(structuredClone(history), 'trim-details');
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    const assistant = sent.find((message) => message.role === 'assistant')!;
    const [block] = detailsResults(assistant.content as string);
    expect(block!.text).toContain(EVIDENCE);
    expect(block!.text).toMatch(/^… [\d,]+ lines left out …$/m);
    expect(
      (assistant.content as string).endsWith(
        '</details>\nThe log shows routine session starts and one kernel warning.',
      ),
    ).toBe(true);
    expect(sent[0]).toEqual(history[0]);
    expect(sent.at(-1)).toEqual(QUESTION);
  });

  it('the run record marks the trimmed message: its size before and the lines left out', async () => {
    await setValves({});
    const history = toolChat();
    const sent = await inlet(structuredClone(history), 'trim-run');
    let heads: RunHead[] = [];
    await waitFor(
      async () => {
        const response = await request(runtime.app).get('/runs?chat=trim-run').set(runtime.auth).expect(200);
        heads = response.body.runs as RunHead[];
        return heads.length > 0;
      },
      { timeoutMs: 30_000 },
    );
    const run = (await request(runtime.app).get(`/runs/${heads[0]!.id}`).set(runtime.auth).expect(200))
      .body as RunRecord;
    const toolIndex = history.findIndex((message) => message.role === 'tool');
    const tool = run.messages[toolIndex]!;
    const sentTool = sent.find((message) => message.role === 'tool')!;
    const markers = [...(sentTool.content as string).matchAll(/^… ([\d,]+) lines left out …$/gm)];
    const leftOut = markers.reduce((sum, marker) => sum + Number(marker[1]!.replace(/,/g, '')), 0);
    expect(tool.disposition).toBe('kept');
    expect(tool.trimmed).toEqual({
      tokensBefore: promptTokens([history[toolIndex]!]) - 3,
      leftOut,
      unit: 'lines',
    });
    expect(tool.trimmed!.tokensBefore).toBeGreaterThan(tool.tokens);
    expect(tool.reason).toContain(`trimmed from ${tool.trimmed!.tokensBefore.toLocaleString('en-US')} tokens`);
    // Only the trimmed message carries it.
    expect(run.messages.filter((message) => message.trimmed)).toEqual([tool]);
  });

  it('trim_exclude_tools and trim_tool_results off: the result is kept or dropped whole, never cut', async () => {
    await setValves({ trim_exclude_tools: 'search_web, read_log' });
    const excluded = await inlet(toolChat(), 'trim-excluded');
    expect(excluded.some((message) => message.role === 'tool')).toBe(false);
    expect(promptTokens(excluded)).toBeLessThanOrEqual(MAX);
    await setValves({ trim_tool_results: false });
    const off = await inlet(detailsChat(), 'trim-off');
    expect(off.some((message) => String(message.content).includes('lines left out'))).toBe(false);
  });
});
