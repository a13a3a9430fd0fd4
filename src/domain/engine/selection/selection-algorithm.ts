import type { EngineOptions } from '../types.js';

/** A unit as selection sees it. */
export interface SelectionUnit {
  position: number;
  /** Input indexes, ascending. */
  members: number[];
  role: string;
  tokens: number;
  /** Max weight of the members. */
  weight: number;
  /** Kept whatever the budget (last user, current turn, recent, pinned, tagged). */
  mandatory: boolean;
  /** Outside `!context=N`: never selected. */
  excluded: boolean;
}

/** How units are ranked for the fill: by weight alone, or (`density` 0.5) by weight ÷ √tokens (`fillRanking` picks per chat). */
export interface FillRanking {
  /** Exponent of the unit's tokens the weight is divided by (0: weight alone). */
  density: number;
}

/** Everything an algorithm may use. */
export interface SelectionContext {
  units: readonly SelectionUnit[];
  /** Tokens left for optional units once system, mandatory units, priming and reserve are counted. */
  available: number;
  /** The token limit selection aims for (Infinity = none). */
  limit: number;
  /** Tokens already committed (system, mandatory, priming, reserve). */
  committed: number;
  options: EngineOptions;
  /** Ids of the input messages, by index. */
  ids: readonly string[];
  previousSequence?: readonly string[];
  /** How the fill ranks units for this chat and question (`fillRanking`); weight alone when absent. */
  ranking?: FillRanking;
}

/** What an algorithm returns: kept flag per unit position, plus notes. */
export interface Selection {
  kept: boolean[];
  notes: string[];
  /** Length of the previous sequence reused (prefix_cache, cache_stable). */
  prefixReused?: number;
  /** Kept unit positions sent after the other kept history, just before the current turn (prefix_cache recall, cache_stable's fresh share). */
  recalled?: number[];
  /**
   * Kept unit positions sent first, in this order, after the system prompts; the other kept history follows in
   * input order, then the current turn. The part of the prompt expected to repeat next time (cache_stable when its
   * fresh share follows the core: the core, then the fresh share; `recalled` then places nothing).
   */
  leading?: number[];
}

/** A selection algorithm: chooses optional units within `available` tokens. */
export interface SelectionAlgorithm {
  readonly name: string;
  /** The previous prompt decides the order (a stable prefix first): repairs cut from the recalled messages and the oldest history, refill adds nothing. */
  readonly cachePrefix?: boolean;
  select(context: SelectionContext): Selection;
}

/** Kept flags with mandatory units already set. */
export function mandatoryOnly(units: readonly SelectionUnit[]): boolean[] {
  return units.map((unit) => unit.mandatory);
}

/** Optional candidate units (not mandatory, not excluded). */
export function candidates(units: readonly SelectionUnit[]): SelectionUnit[] {
  return units.filter((unit) => !unit.mandatory && !unit.excluded);
}
