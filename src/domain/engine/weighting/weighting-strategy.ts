import type { ChatNode } from '../conversation/chat-node.js';
import type { EngineOptions, TermCache } from '../types.js';

/** What a strategy scores against. */
export interface WeightingContext {
  nodes: readonly ChatNode[];
  /** Text of the last user message. */
  query: string;
  /** Index of the last user message (the query), -1 if none. */
  queryIndex: number;
  options: EngineOptions;
  externalScores?: Record<string, number>;
  /** Cached word counts by message id (keyword scoring). */
  termCache?: TermCache;
}

/** A relevance strategy: one score in [0,1] per input message (system messages get 1). */
export interface WeightingStrategy {
  readonly name: string;
  score(context: WeightingContext): Float64Array;
}
