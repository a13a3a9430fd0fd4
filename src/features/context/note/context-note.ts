/**
 * The context note: what the context filter's inlet saw and sent for one chat turn (its status line), kept in the
 * filter's state until the outlet appends it to the reply. Its wording is here; the pattern that recognizes an
 * appended note (to strip it from the history, and from the text a reply's fingerprint is taken of) is
 * src/domain/notes/context-note-line.ts, which the accounting feature reads too.
 */
import { z } from 'zod';
import type { Plan } from '../../../domain/engine/index.js';
import type { ChatMessage } from '../../../core/messages/chat-message.js';

/** What the inlet saw and sent for one chat turn, kept for the outlet's note. */
export const contextNoteSchema = z.object({
  before: z.number(),
  after: z.number(),
  messages: z.number().int(),
  leftOut: z.number().int(),
  summarized: z.number().int(),
  /** Tokens of Open WebUI's conversation summary, kept in a system message (absent when the chat has none). */
  compactionSummary: z.number().int().min(0).optional(),
  /** An admin's link to the run's record (the run inspector's `inspect_url`). */
  run: z.string().optional(),
  /** Share (0–1) of the prompt that repeats the chat's previous prompt from its start; only when that is tracked. */
  repeated: z.number().min(0).max(1).optional(),
  /** Long messages of earlier turns sent trimmed, and the lines (or JSON items) left out of them (absent when none). */
  trimmed: z.object({ messages: z.number().int().min(1), leftOut: z.number().int().min(0) }).optional(),
  /** What the budget held back of what the user set (`recent=1000 capped to the admin's budget of 500 tokens`). */
  capped: z.string().max(300).optional(),
});
export type ContextNote = z.infer<typeof contextNoteSchema>;

/** How long a turn's note waits for its outlet. */
export const CONTEXT_NOTE_TTL_MS = 86_400_000;

/** State key of a turn's note: the chat, and the number of user messages up to that turn (flag blocks do not change it). */
export function contextNoteKey(chatKey: string, messages: readonly ChatMessage[]): string {
  let turns = 0;
  for (const message of messages) if (message?.role === 'user') turns += 1;
  return `note:${chatKey}:${turns}`;
}

/**
 * The note of a plan: tokens before and after (summary block included), chat messages, those not sent in full, those
 * summarized; with `previousPrompt` (the chat's previous prompt is tracked), the share of the prompt that repeats it.
 */
export function contextNoteOf(
  plan: Plan,
  tokensAfter: number,
  summarized: number,
  previousPrompt?: readonly string[],
): ContextNote {
  const chat = plan.entries.filter((entry) => entry.role !== 'system' && entry.role !== 'developer');
  const leftOut = chat.filter((entry) => entry.disposition === 'drop' || entry.disposition === 'summarize').length;
  const note: ContextNote = {
    before: plan.tokensBefore,
    after: tokensAfter,
    messages: chat.length,
    leftOut,
    summarized,
  };
  if (plan.compactionSummary) note.compactionSummary = plan.compactionSummary.tokens;
  const trimmed = chat.filter(
    (entry) => entry.trimmed && entry.disposition !== 'drop' && entry.disposition !== 'summarize',
  );
  if (trimmed.length > 0)
    note.trimmed = {
      messages: trimmed.length,
      leftOut: trimmed.reduce((sum, entry) => sum + entry.trimmed!.leftOut, 0),
    };
  if (previousPrompt && tokensAfter > 0)
    note.repeated = Math.min(1, Math.max(0, plan.budget.cachedPrefixTokens / tokensAfter));
  return note;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The summary part of a note: ` · Open WebUI's summary kept (1,234 tokens)` (empty when the chat has none). */
const compactionPart = (note: ContextNote) =>
  note.compactionSummary === undefined ? '' : ` · Open WebUI's summary kept (${count(note.compactionSummary)} tokens)`;

/** The trimming part of a note: ` · 1 long message trimmed (2,994 lines left out)` (empty when none was). */
const trimmedPart = (note: ContextNote) =>
  note.trimmed === undefined
    ? ''
    : ` · ${count(note.trimmed.messages)} long message${note.trimmed.messages === 1 ? '' : 's'} trimmed (${count(note.trimmed.leftOut)} lines left out)`;

/** The repeat part of a note: ` · 62% of the prompt repeats the previous one` (empty when not tracked). */
const repeatedPart = (note: ContextNote) =>
  note.repeated === undefined ? '' : ` · ${Math.round(note.repeated * 100)}% of the prompt repeats the previous one`;

/**
 * One line: `context: 20,712 → 1,986 tokens · 612 of 690 messages left out · 2 summarized`, then the long messages sent
 * trimmed (`· 1 long message trimmed (2,994 lines left out)`), Open WebUI's summary
 * when the history carries one (`· Open WebUI's summary kept (1,234 tokens)`), the repeated share when tracked, what
 * the budget held back of what the user set (`· recent=1000 capped to the admin's budget of 500 tokens`) and
 * `· run <link>` for admins.
 */
export function formatContextNote(note: ContextNote): string {
  const line =
    formatNoteCounts(note) +
    trimmedPart(note) +
    compactionPart(note) +
    repeatedPart(note) +
    (note.capped ? ` · ${note.capped}` : '');
  return note.run ? `${line} · run ${note.run}` : line;
}

function formatNoteCounts(note: ContextNote): string {
  if (note.leftOut === 0)
    return note.trimmed
      ? `context: ${count(note.before)} → ${count(note.after)} tokens · all ${count(note.messages)} messages sent`
      : `context: ${count(note.after)} tokens · all ${count(note.messages)} messages sent`;
  const parts = [
    `context: ${count(note.before)} → ${count(note.after)} tokens`,
    `${count(note.leftOut)} of ${count(note.messages)} messages left out`,
  ];
  if (note.summarized > 0) parts.push(`${count(note.summarized)} summarized`);
  return parts.join(' · ');
}

/** The admin's switch, unless the user chose `on` or `off`. */
export function contextNoteEnabled(admin: boolean, user: 'default' | 'on' | 'off' | undefined): boolean {
  return user === 'on' ? true : user === 'off' ? false : admin;
}
