/**
 * LoCoMo conversations as chat requests, exactly as the real-data recall benchmark defines them:
 * each turn is one message (role `user` for speaker_a, `assistant` for speaker_b), content
 * `${speaker}: ${text}` plus ` [shares ${blip_caption}]` when the turn shares an image; each
 * question is appended as the last user message. The data is read from ../shared/data at bench
 * (or test) time and never copied into the repository (CC BY-NC 4.0).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatMessage } from './chat-message.js';

/** Where the development split lives, relative to the repository: `../shared/data/locomo-dev.json`. */
export const LOCOMO_DEV_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data/locomo-dev.json');

/** LoCoMo's question categories. */
export const LOCOMO_CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: Array<{ question: string; evidence?: unknown; category: number }>;
}

/** One question over a whole conversation: its messages (question last) and the indexes of its evidence turns. */
export interface LocomoQuestion {
  sampleId: string;
  question: string;
  category: number;
  /** Indexes (in `messages` of the conversation) of the evidence turns, distinct. */
  evidence: number[];
}

/** One conversation: every turn as a message, in order, and its answerable questions. */
export interface LocomoConversation {
  sampleId: string;
  turns: ChatMessage[];
  questions: LocomoQuestion[];
  /** Questions left out because an evidence id names no turn. */
  skipped: number;
}

/** `D1:03` → `D1:3`; `D10:1` stays. */
export function normaliseDiaId(id: string): string {
  const match = /^D(\d+):0*(\d+)$/i.exec(id.trim());
  return match ? `D${Number(match[1])}:${Number(match[2])}` : id.trim();
}

/** Evidence ids of a question, split on `;` and spaces, normalised. */
export function evidenceIds(evidence: unknown): string[] {
  const raw = Array.isArray(evidence) ? evidence : [evidence];
  return raw
    .flatMap((item) => String(item ?? '').split(/[;\s]+/))
    .filter((id) => id.length > 0)
    .map(normaliseDiaId);
}

/** The sessions of a conversation in order (`session_1`, `session_2`, …). */
function sessions(conversation: RawSample['conversation']): RawTurn[][] {
  return Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .map((key) => conversation[key] as RawTurn[]);
}

/** Parses one LoCoMo sample into the benchmark's messages and questions. */
export function locomoConversation(sample: RawSample): LocomoConversation {
  const { speaker_a: speakerA } = sample.conversation;
  const turns: ChatMessage[] = [];
  const indexOf = new Map<string, number>();
  for (const turn of sessions(sample.conversation).flat()) {
    const caption = turn.blip_caption ? ` [shares ${turn.blip_caption}]` : '';
    indexOf.set(normaliseDiaId(turn.dia_id), turns.length);
    turns.push({
      role: turn.speaker === speakerA ? 'user' : 'assistant',
      content: `${turn.speaker}: ${turn.text}${caption}`,
    });
  }
  const questions: LocomoQuestion[] = [];
  let skipped = 0;
  for (const qa of sample.qa) {
    const ids = evidenceIds(qa.evidence);
    const indexes = ids.map((id) => indexOf.get(id));
    if (ids.length === 0 || indexes.some((index) => index === undefined)) {
      skipped += 1;
      continue;
    }
    questions.push({
      sampleId: sample.sample_id,
      question: String(qa.question),
      category: qa.category,
      evidence: [...new Set(indexes as number[])],
    });
  }
  return { sampleId: sample.sample_id, turns, questions, skipped };
}

/** Reads the development split; throws with the path when it is missing (never skipped silently). */
export function loadLocomo(path = LOCOMO_DEV_PATH): LocomoConversation[] {
  if (!existsSync(path))
    throw new Error(`LoCoMo data not found at ${path} (the repository expects ../shared/data/ beside it)`);
  return (JSON.parse(readFileSync(path, 'utf8')) as RawSample[]).map(locomoConversation);
}

/** The request for one question: every turn, then the question as the last user message. */
export function questionMessages(conversation: LocomoConversation, question: LocomoQuestion): ChatMessage[] {
  return [...conversation.turns, { role: 'user', content: question.question }];
}
