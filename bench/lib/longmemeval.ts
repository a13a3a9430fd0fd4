/**
 * LongMemEval S questions as chat requests (Wu et al., ICLR 2025; github xiaowu0162/LongMemEval, MIT licence),
 * from the dataset's own format: the sessions in date order (a stable sort of `haystack_dates`), each turn one
 * message with its role, then the question as the last user message. Evidence: the turns marked `has_answer`.
 * The data is read from ../shared/data at bench time and never copied into the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { ChatMessage } from './chat-message.js';

/** Where the development split lives, relative to the repository: `../shared/data/longmemeval-s-dev.json.gz`. */
export const LONGMEMEVAL_DEV_PATH = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../shared/data/longmemeval-s-dev.json.gz',
);

interface RawTurn {
  role: 'user' | 'assistant';
  content: string;
  has_answer?: boolean;
}

interface RawQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  haystack_dates: string[];
  haystack_sessions: RawTurn[][];
}

/** One question: its request (history, then the question) and the indexes of its evidence turns. */
export interface LongMemEvalQuestion {
  id: string;
  type: string;
  messages: ChatMessage[];
  evidence: number[];
  /** Evidence turns by role. */
  evidenceRoles: Array<'user' | 'assistant'>;
}

/** `2023/05/02 (Tue) 05:35` → a sortable key (`2023/05/02 05:35`). */
function dateKey(date: string): string {
  return date.replace(/\s*\([^)]*\)\s*/, ' ').trim();
}

/** Parses one question into its replayed chat. */
export function longMemEvalQuestion(raw: RawQuestion): LongMemEvalQuestion {
  const order = raw.haystack_sessions
    .map((_, index) => index)
    .sort((a, b) => dateKey(raw.haystack_dates[a] ?? '').localeCompare(dateKey(raw.haystack_dates[b] ?? '')) || a - b);
  const messages: ChatMessage[] = [];
  const evidence: number[] = [];
  const evidenceRoles: Array<'user' | 'assistant'> = [];
  for (const session of order) {
    for (const turn of raw.haystack_sessions[session] ?? []) {
      if (turn.has_answer) {
        evidence.push(messages.length);
        evidenceRoles.push(turn.role);
      }
      messages.push({ role: turn.role, content: turn.content });
    }
  }
  messages.push({ role: 'user', content: raw.question });
  return { id: raw.question_id, type: raw.question_type, messages, evidence, evidenceRoles };
}

/** Reads the development split, or undefined when the file is missing. */
export function loadLongMemEval(path = LONGMEMEVAL_DEV_PATH): LongMemEvalQuestion[] | undefined {
  if (!existsSync(path)) return undefined;
  const raw = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as RawQuestion[];
  return raw.map(longMemEvalQuestion);
}
