import request from 'supertest';
import type { TestRuntime } from '../../helpers/create-test-runtime.js';
import type { Message } from './flag-chats.js';

/**
 * The context filter's Pipelines inlet, as Open WebUI's Pipelines client calls it (model gpt-4o, the chat id in
 * `metadata`): the messages it sends on.
 */
export async function contextInlet(
  runtime: TestRuntime,
  messages: Message[],
  chatId: string,
  user: Record<string, unknown>,
): Promise<Message[]> {
  const response = await request(runtime.app)
    .post('/context/filter/inlet')
    .set(runtime.auth)
    .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } }, user })
    .expect(200);
  return response.body.messages as Message[];
}

/**
 * The generated Open WebUI Function's inlet (`userValves`: the user's context valves, as `user_valves.context`): the
 * messages sent and the context status line ('' without one).
 */
export async function functionInlet(
  runtime: TestRuntime,
  messages: Message[],
  chatId: string,
  userId: string,
  userValves?: Record<string, unknown>,
): Promise<{ sent: Message[]; status: string }> {
  const response = await request(runtime.app)
    .post('/integrations/open-webui/inlet')
    .set(runtime.auth)
    .send({
      body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } },
      user: { id: userId, role: 'user' },
      ...(userValves ? { user_valves: { context: userValves } } : {}),
    })
    .expect(200);
  const events = response.body.events as Array<{ type: string; data: { description?: string } }>;
  const status =
    events.find((event) => event.type === 'status' && event.data.description?.startsWith('context:'))?.data
      .description ?? '';
  return { sent: response.body.body.messages as Message[], status };
}

/** The context filter's admin valves, sent as the valves form sends them (every value a string). */
export async function setContextValves(
  runtime: TestRuntime,
  values: Record<string, string | number | boolean>,
): Promise<void> {
  const form = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
  await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(form).expect(200);
}
