import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateMessageOrder } from '../../src/domain/engine/index.js';
import { detailsResults, escapeHtml } from '../../src/domain/engine/trim/details-blocks.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { contextInlet, setContextValves } from './helpers/context-http.js';
import { promptTokens, type Message } from './helpers/flag-chats.js';
import { detailsChat, EVIDENCE, LOG, QUESTION, toolChat } from './helpers/tool-log-chat.js';

/**
 * The echo loop through the real context filter over HTTP: the outlet of one turn records what the reply used of
 * the history (its entities' messages and lines), and the next inlet of that chat prefers them. Both shapes Open
 * WebUI gives a filter are used (open-webui/open-webui backend/open_webui/utils/middleware.py, stored at commit
 * 000032ed1cfec98667bbf62795b0f8e0c76025b5): `role: "tool"` messages (0.10+) and `<details type="tool_calls"
 * result="…">` blocks in the assistant's content (0.6.x). The follow-up names nothing of the line it asks about, so
 * only the echo can bring that line back into the trimmed result.
 */
describe('context filter: the echo loop over HTTP (outlet → next inlet)', () => {
  let runtime: TestRuntime;
  const MAX = 2000;
  const user = { id: 'u-echo', email: 'echo@example.com', name: 'E', role: 'user' };
  const REPLY = { role: 'assistant', content: 'The nvme0n1 controller overheated; its error code was E4217.' };
  const FOLLOW_UP = { role: 'user', content: 'When did that happen? Quote the whole line.' };

  const inlet = (messages: Message[], chatId: string) => contextInlet(runtime, messages, chatId, user);
  const outlet = async (messages: Message[], chatId: string): Promise<void> => {
    await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', chat_id: chatId, messages }, user })
      .expect(200);
  };
  const setValves = (values: Record<string, string | number | boolean>) =>
    setContextValves(runtime, { max_tokens: MAX, recent: 2, echo_boost: true, ...values });
  /** One turn's inlet and outlet, then the follow-up's inlet: what the follow-up sends. */
  const twoTurns = async (history: Message[], chatId: string): Promise<Message[]> => {
    await inlet(structuredClone(history), chatId);
    await outlet([...structuredClone(history), REPLY], chatId);
    return inlet([...structuredClone(history), REPLY, FOLLOW_UP], chatId);
  };
  const resultText = (sent: Message[]): string => {
    const tool = sent.find((message) => message.role === 'tool');
    if (tool) return tool.content as string;
    const assistant = sent.find((message) => String(message.content ?? '').includes('<details type="tool_calls"'));
    return assistant ? (detailsResults(assistant.content as string)[0]?.text ?? '') : '';
  };

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('has the echo_boost valve, on by default', async () => {
    const spec = await request(runtime.app).get('/context/valves/spec').set(runtime.auth).expect(200);
    expect(spec.body.properties.echo_boost).toMatchObject({ type: 'boolean', default: true });
  });

  for (const [shape, chat] of [
    ['tool messages (0.10+)', toolChat],
    ['tool-call blocks (0.6.x)', detailsChat],
  ] as const) {
    it(`${shape}: the line the reply used is kept in the follow-up's trimmed result; off, it is not`, async () => {
      await setValves({});
      const sent = await twoTurns(chat(), `echo-on-${shape}`);
      expect(resultText(sent)).toMatch(/… [\d,]+ lines left out …/);
      expect(resultText(sent)).toContain(EVIDENCE);
      expect(validateMessageOrder(sent)).toEqual([]);
      expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);

      await setValves({ echo_boost: false });
      const off = await twoTurns(chat(), `echo-off-${shape}`);
      expect(resultText(off)).toMatch(/… [\d,]+ lines left out …/);
      expect(resultText(off)).not.toContain(EVIDENCE);
    });
  }

  /** Open WebUI ≥ 0.10's outlet message: the tool call and its result in `output` (Responses-style items). */
  const withOutput = (content: string) => ({
    id: 'a1',
    role: 'assistant',
    content,
    output: [
      { type: 'function_call', call_id: 'call_1', name: 'read_log', arguments: '{}', status: 'completed' },
      { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: LOG }] },
      { type: 'message', content: [{ type: 'output_text', text: content }] },
    ],
  });
  /** The same message as the next inlet gets it (`convert_output_to_messages`). */
  const expanded = (content: string): Message[] => [
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: LOG },
    { role: 'assistant', content },
  ];

  it("Open WebUI 0.10's outlet (tool results in `output`): an earlier turn's result, and the reply's own", async () => {
    await setValves({});
    const ask = { role: 'user', content: 'Show me the system log of the server.' };
    const earlier = 'The log shows routine session starts and one kernel warning.';
    await outlet([ask, withOutput(earlier), QUESTION, REPLY] as Message[], 'echo-output-earlier');
    const sent = await inlet([ask, ...expanded(earlier), QUESTION, REPLY, FOLLOW_UP], 'echo-output-earlier');
    expect(resultText(sent)).toMatch(/… [\d,]+ lines left out …/);
    expect(resultText(sent)).toContain(EVIDENCE);

    // The tool was called in the turn of the reply: its result is in the reply's own `output`.
    await outlet([QUESTION, withOutput(REPLY.content)] as Message[], 'echo-output-own');
    const own = await inlet([QUESTION, ...expanded(REPLY.content), FOLLOW_UP], 'echo-output-own');
    expect(resultText(own)).toMatch(/… [\d,]+ lines left out …/);
    expect(resultText(own)).toContain(EVIDENCE);
    expect(validateMessageOrder(own)).toEqual([]);
  });

  it("Open WebUI 0.6.x, the tool called in the reply's turn: its block in the reply's content is searched, not read as the reply", async () => {
    await setValves({});
    const block = `<details type="tool_calls" done="true" id="call_1" name="read_log" arguments="${escapeHtml('{}')}" result="${escapeHtml(JSON.stringify(LOG))}" files="" embeds="[]">\n<summary>Tool Executed</summary>\n</details>\n`;
    const reply = { role: 'assistant', content: `${block}${REPLY.content}` };
    await outlet([QUESTION, reply] as Message[], 'echo-details-own');
    const sent = await inlet([QUESTION, reply, FOLLOW_UP] as Message[], 'echo-details-own');
    expect(resultText(sent)).toMatch(/… [\d,]+ lines left out …/);
    expect(resultText(sent)).toContain(EVIDENCE);
  });

  it('a trimmed result is the same message on the next turn: the same bytes for the same question', async () => {
    await setValves({ echo_boost: false });
    const first = await inlet(toolChat(), 'trim-stable');
    const next = await inlet([...toolChat(), REPLY, QUESTION], 'trim-stable');
    expect(resultText(first)).toMatch(/… [\d,]+ lines left out …/);
    expect(JSON.stringify(next.find((message) => message.role === 'tool'))).toBe(
      JSON.stringify(first.find((message) => message.role === 'tool')),
    );
  });

  it('another chat does not get the echo of this one', async () => {
    await setValves({});
    await twoTurns(toolChat(), 'echo-chat-a');
    const other = await inlet([...toolChat(), REPLY, FOLLOW_UP], 'echo-chat-b');
    expect(resultText(other)).not.toContain(EVIDENCE);
  });
});
