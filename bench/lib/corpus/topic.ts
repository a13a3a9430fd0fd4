import type { Rng } from '../rng.js';

/** A fact the user states once; `answer` is the text in `statement` the question asks for. */
export interface PlantedFact {
  statement: string;
  answer: string;
  /** Shares some content words with the statement. */
  question: string;
  /** The same question in other words: no content word in common with the statement. */
  paraphrase: string;
}

/** Something the user says happened "today"; the date is only in that session's opener. */
export interface PlantedEvent {
  statement: string;
  /** A phrase of `statement` that identifies the event. */
  marker: string;
  question: string;
}

/** Two facts planted in different sessions; the question needs both. */
export interface PlantedPair {
  first: string;
  firstAnswer: string;
  second: string;
  secondAnswer: string;
  question: string;
}

/** A recommendation the assistant made when asked; the answer is in the assistant's reply. */
export interface PlantedAdvice {
  ask: string;
  reply: string;
  answer: string;
  question: string;
}

/** One subject of conversation: planted facts, distractor chatter and assistant prose about it. */
export interface Topic {
  name: string;
  facts: ReadonlyArray<(rng: Rng) => PlantedFact>;
  events: ReadonlyArray<(rng: Rng) => PlantedEvent>;
  pairs: ReadonlyArray<(rng: Rng) => PlantedPair>;
  advice: ReadonlyArray<(rng: Rng) => PlantedAdvice>;
  /** User questions on the topic that plant nothing (they share the facts' vocabulary), each with the sentence that answers it. */
  chatter: ReadonlyArray<{ ask: (rng: Rng) => string; answer: string }>;
  /** Sentences an assistant reply on this topic is built from. */
  replies: readonly string[];
}
