import type { z } from 'zod';
import { ValidationError } from '../../core/errors/index.js';

/**
 * `value` checked by `schema`, or a 400 (`ERR_VALIDATION`) whose `fields` name each problem (`path`, `message`). The
 * message is `summary` as given, or, with `{ prefix }`, the prefix and every problem
 * (`Invalid usage query: limit: Too big…; before: …`), so a caller reading only `detail` still learns what to fix.
 */
export function parsedOr400<T>(schema: z.ZodType<T>, value: unknown, summary: string | { prefix: string }): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const message =
    typeof summary === 'string'
      ? summary
      : `${summary.prefix}: ${fields.map((field) => `${field.path || 'value'}: ${field.message}`).join('; ')}`;
  throw new ValidationError(message, fields);
}
