import { z } from 'zod';

/** The run inspector's admin valves (part of the context filter's). */
export const runValves = {
  inspect: z
    .enum(['structure', 'preview', 'off'])
    .default('structure')
    .describe(
      'Run records for the dashboard: structure (roles, tokens, scores, reasons; no message text), preview (plus the first 120 characters of each message), off (none)',
    ),
  inspect_runs_per_chat: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(20)
    .describe('Run records kept per chat (the latest)'),
  inspect_max_runs: z.number().int().min(1).max(100_000).default(2000).describe('Run records kept in all (the latest)'),
  inspect_ttl_hours: z.number().min(0.01).max(8760).default(168).describe('Hours a run record is kept'),
  inspect_url: z
    .string()
    .default('')
    .describe(
      "This server's address as admins reach it (e.g. https://eunoe.example): the status line and the context note link admins to the run (empty = no link)",
    ),
};
