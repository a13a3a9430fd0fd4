import path from 'node:path';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/util/logger.js';
import { modelCount, type PriceTable } from '../../domain/pricing/price-table.js';
import { BUNDLED_SNAPSHOT, readLastGoodFile, readModelListFile } from '../../domain/pricing/table-files.js';
import { loadCustomPricing, loadModelAliases } from '../../domain/pricing/custom-pricing.js';
import type { CustomPrices } from '../../domain/pricing/price-book.js';
import type { SharedPriceTable } from './shared-price-table.js';

/** What the service starts with, before any refresh. */
export interface StartingPrices {
  table: PriceTable;
  custom: CustomPrices;
  aliases: Record<string, string>;
}

/**
 * Read the prices to start with: the snapshot (PRICING_DIR's, else the bundled one) or the
 * last good table (file or store, newest wins), plus the custom prices and user aliases.
 */
export async function loadStartingPrices(options: {
  config: Pick<Config, 'PRICING_DIR' | 'CUSTOM_PRICING_FILE' | 'MODEL_ALIASES_FILE'>;
  logger: Logger;
  shared?: SharedPriceTable;
  snapshotFile?: string | URL;
}): Promise<StartingPrices> {
  const { config, logger, shared } = options;
  const local = await readModelListFile(path.join(config.PRICING_DIR, 'openrouter-snapshot.json'), 'snapshot');
  const snapshot = local ?? (await readModelListFile(options.snapshotFile ?? BUNDLED_SNAPSHOT, 'snapshot'));
  const fromFile = await readLastGoodFile(config.PRICING_DIR);
  const fromStore = shared ? await shared.read() : undefined;
  const lastGood = [fromFile, fromStore]
    .filter((entry): entry is PriceTable => !!entry && modelCount(entry) > 0)
    .sort((a, b) => b.fetchedAt - a.fetchedAt)[0];
  const custom = config.CUSTOM_PRICING_FILE ? await loadCustomPricing(config.CUSTOM_PRICING_FILE) : {};
  const aliases = config.MODEL_ALIASES_FILE ? await loadModelAliases(config.MODEL_ALIASES_FILE) : {};
  // A newer bundled snapshot (after an upgrade) beats an older last-good table.
  if (lastGood && (!snapshot || lastGood.fetchedAt >= snapshot.fetchedAt))
    return { table: { ...lastGood, source: 'last-good' }, custom, aliases };
  if (snapshot) return { table: snapshot, custom, aliases };
  logger.error('pricing: no bundled snapshot found; only custom prices are known until a refresh succeeds');
  return {
    table: { source: Object.keys(custom).length ? 'custom' : 'snapshot', fetchedAt: 0, models: {}, aliases: {} },
    custom,
    aliases,
  };
}
