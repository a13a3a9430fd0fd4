import type { AnyValvesSchema } from '../host/types.js';
import type { PipeDefinition } from './types.js';

/**
 * Types a pipe file's default export and marks it as a pipe for the loader: inside `pipe()`,
 * `valves` and `userValves` are inferred from the zod schemas. Declaring `models` makes it a manifold.
 *
 * @example
 * export default definePipe({
 *   name: 'Echo',
 *   valves: z.object({ prefix: z.string().default('> ') }),
 *   async *pipe({ userMessage, valves }) {
 *     yield valves.prefix;
 *     yield userMessage ?? '';
 *   },
 * });
 */
export function definePipe<
  V extends AnyValvesSchema = AnyValvesSchema,
  U extends AnyValvesSchema | undefined = undefined,
>(definition: Omit<PipeDefinition<V, U>, 'kind'>): PipeDefinition<V, U> {
  return { ...definition, kind: 'pipe' };
}
