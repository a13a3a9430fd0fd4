import type { AnyValvesSchema, FilterDefinition } from './types.js';

/**
 * Identity helper that types a filter file's default export: inside hooks, `valves`
 * and `userValves` are inferred from the zod schemas.
 *
 * @example
 * export default defineFilter({
 *   name: 'Shout',
 *   valves: baseValves.extend({ loud: z.boolean().default(true).describe('Upper-case replies') }),
 *   outlet: ({ body, valves }) => body,
 * });
 */
export function defineFilter<
  V extends AnyValvesSchema = AnyValvesSchema,
  U extends AnyValvesSchema | undefined = undefined,
>(definition: FilterDefinition<V, U>): FilterDefinition<V, U> {
  return definition;
}
