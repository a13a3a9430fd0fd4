import { baseValves, defineFilter, FilterError, z } from 'eunoe';

/**
 * Conversation turn limit (port of the Pipelines example `conversation_turn_limit_filter`):
 * users whose role is targeted may not send more than `max_turns` user messages per chat.
 * Open WebUI's background tasks (titles, tags) are never blocked.
 */
export default defineFilter({
  name: 'Conversation Turn Limit',
  valves: baseValves.extend({
    // An example: off until an admin lists models here ("*" = all), so a fresh install never blocks long chats.
    pipelines: z
      .array(z.string())
      .default([])
      .describe('Model ids this filter applies to ("*" = every model); empty = off'),
    max_turns: z.number().int().min(1).default(25).describe('Most user turns one chat may have'),
    target_user_roles: z.array(z.string()).default(['user']).describe('Roles the limit applies to'),
  }),
  userValves: z.object({
    max_turns: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Your own, lower limit (empty = the admin limit)'),
  }),
  inlet({ body, user, valves, userValves }) {
    const metadata = (body.metadata ?? {}) as { task?: unknown };
    if (metadata.task) return body;
    if (!valves.target_user_roles.includes(String(user?.role ?? 'user'))) return body;
    const limit = Math.min(valves.max_turns, userValves.max_turns ?? Number.POSITIVE_INFINITY);
    const turns = (body.messages ?? []).filter((message) => (message as { role?: unknown })?.role === 'user').length;
    if (turns > limit) {
      throw new FilterError(
        429,
        `Conversation turn limit exceeded: this chat has ${turns} turns and the limit is ${limit}. Start a new chat.`,
      );
    }
    return body;
  },
});
