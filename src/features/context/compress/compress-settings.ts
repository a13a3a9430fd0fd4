import type { FactReceiptMode } from './fact-receipt.js';
import { DEFAULT_LEVEL_POLICY, type LevelPolicy } from './summary-level.js';

/** What the compression step needs to know besides the plan. */
export interface CompressSettings {
  /** Summarizer model id (part of every cache key). */
  model: string;
  /** Target summary size as a fraction of the summarized tokens (also in the engine's reserve). */
  ratio: number;
  levels: LevelPolicy;
  factReceipt: FactReceiptMode;
  /** Ahead-of-time run: summarize whole groups and stand-in parts so that any next plan finds them cached. */
  warm?: boolean;
}

/** Settings with defaults: ratio 0.3, every level on, receipts appended. */
export function compressSettings(partial: Partial<CompressSettings> & { model: string }): CompressSettings {
  return { ratio: 0.3, levels: DEFAULT_LEVEL_POLICY, factReceipt: 'append', ...partial };
}
