import { z } from 'zod';

/** One model of OpenRouter's `GET /api/v1/models`, only the fields pricing needs; lenient (`nullish`). */
export const openRouterModelSchema = z.object({
  id: z.string().min(1),
  canonical_slug: z.string().nullish(),
  context_length: z.number().int().positive().nullish().catch(undefined),
  architecture: z.object({ tokenizer: z.string().nullish() }).nullish().catch(undefined),
  top_provider: z.object({ context_length: z.number().int().positive().nullish() }).nullish().catch(undefined),
  pricing: z.record(z.string(), z.unknown()),
});

/** A parsed model record. */
export type OpenRouterModel = z.infer<typeof openRouterModelSchema>;

/** The list envelope; `total_count`/`links` are optional (older captures only have `data`). */
export const openRouterListSchema = z.object({
  data: z.array(z.unknown()),
  total_count: z.number().nullish(),
  links: z.object({ next: z.string().nullish() }).nullish(),
});

/** Result of parsing a list: the good models and how many entries were skipped as malformed. */
export interface ParsedModelList {
  models: OpenRouterModel[];
  skipped: number;
}

/**
 * Validate a `/models` response body defensively: the envelope must be right, single
 * malformed entries are skipped (counted), never fatal. Returns undefined for a bad envelope.
 */
export function parseModelList(body: unknown): ParsedModelList | undefined {
  const envelope = openRouterListSchema.safeParse(body);
  if (!envelope.success) return undefined;
  const models: OpenRouterModel[] = [];
  let skipped = 0;
  for (const entry of envelope.data.data) {
    const parsed = openRouterModelSchema.safeParse(entry);
    if (parsed.success) models.push(parsed.data);
    else skipped++;
  }
  return { models, skipped };
}
