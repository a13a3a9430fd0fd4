import { baseValves, defineFilter, z } from 'eunoe';

/**
 * Per-user system-prompt prefix: puts the admin's `prefix` and then the user's own
 * `prefix` in front of the system prompt (adding a system message when there is none).
 */
export default defineFilter({
  name: 'System Prompt Prefix',
  valves: baseValves.extend({
    priority: z.number().int().default(-10).describe('Filters run in ascending priority.'),
    prefix: z.string().default('').describe('Text every system prompt starts with'),
  }),
  userValves: z.object({
    prefix: z
      .string()
      .default('')
      .describe('Your own text at the start of the system prompt (e.g. "Answer in French.")'),
    enabled: z.boolean().default(true).describe('Add your prefix'),
  }),
  inlet({ body, valves, userValves }) {
    const parts = [valves.prefix, userValves.enabled ? userValves.prefix : '']
      .map((part) => part.trim())
      .filter(Boolean);
    if (parts.length === 0 || !Array.isArray(body.messages)) return body;
    const prefix = parts.join('\n');
    const messages = [...body.messages];
    const index = messages.findIndex((message) => message?.role === 'system');
    if (index === -1) {
      messages.unshift({ role: 'system', content: prefix });
    } else {
      const system = messages[index]!;
      const content = typeof system.content === 'string' ? `${prefix}\n\n${system.content}` : system.content;
      messages[index] = { ...system, content };
    }
    return { ...body, messages };
  },
});
