import type { ModelPrice } from './types.js';
import { ModelIndex } from './model-index.js';
import type { PriceTable } from './price-table.js';

/** Custom prices by model id (CUSTOM_PRICING_FILE), merged over the table's. */
export type CustomPrices = Record<string, Partial<ModelPrice> & { id: string }>;

/**
 * The prices in use: the current table, the custom prices and user aliases laid over it, and
 * the ModelIndex built from the three (rebuilt whenever one changes). Sole owner of that state.
 */
export class PriceBook {
  private current: PriceTable = { source: 'snapshot', fetchedAt: 0, models: {}, aliases: {} };
  private custom: CustomPrices = {};
  private userAliases: Record<string, string> = {};
  private built: ModelIndex;
  private loadedAtMs: number;

  constructor(
    private readonly prefixes: string[],
    private readonly now: () => number,
  ) {
    this.built = new ModelIndex({}, {}, prefixes);
    this.loadedAtMs = now();
  }

  /** The table in use (without the custom prices). */
  get table(): PriceTable {
    return this.current;
  }
  /** The index lookups resolve against. */
  get index(): ModelIndex {
    return this.built;
  }
  /** When the table in use was adopted (epoch ms). */
  get loadedAt(): number {
    return this.loadedAtMs;
  }
  get customModels(): number {
    return Object.keys(this.custom).length;
  }
  get aliases(): number {
    return Object.keys(this.userAliases).length;
  }

  /** Lay custom prices and user aliases over every table from now on. */
  setOverrides(custom: CustomPrices, aliases: Record<string, string>): void {
    this.custom = custom;
    this.userAliases = aliases;
    this.rebuild();
  }

  /** Adopt a table: it is the one in use from now on. */
  use(table: PriceTable): void {
    this.current = table;
    this.loadedAtMs = this.now();
    this.rebuild();
  }

  private rebuild(): void {
    const models: Record<string, ModelPrice> = { ...this.current.models };
    for (const [id, entry] of Object.entries(this.custom)) models[id] = { ...models[id], ...entry };
    this.built = new ModelIndex(models, { ...this.current.aliases, ...this.userAliases }, this.prefixes);
  }
}
