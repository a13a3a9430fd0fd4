import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseModelList } from './openrouter-schema.js';
import { buildPriceTable, type PriceTable, type PriceTableSource } from './price-table.js';

/** The snapshot bundled with the code (`pricing/openrouter-snapshot.json` at the repository root). */
export const BUNDLED_SNAPSHOT = new URL('../../../pricing/openrouter-snapshot.json', import.meta.url);

/** File name of the last good table inside PRICING_DIR (git-ignored). */
export const LAST_GOOD_FILE = 'last-good.json';

const modelPriceSchema = z.looseObject({ id: z.string() });

/** Shape check for a stored table (last-good file or state store document). */
export const priceTableSchema = z.object({
  source: z.enum(['snapshot', 'last-good', 'live', 'custom']),
  fetchedAt: z.number(),
  models: z.record(z.string(), modelPriceSchema),
  aliases: z.record(z.string(), z.string()),
});

/** Parse a stored table; undefined when it is not one. */
export function parseStoredTable(value: unknown): PriceTable | undefined {
  const parsed = priceTableSchema.safeParse(value);
  return parsed.success ? (parsed.data as PriceTable) : undefined;
}

/** Capture time of a snapshot: `captured_at` of its `<name>.meta.json` sidecar, else the file's mtime. */
async function capturedAt(file: string | URL, mtimeMs: number): Promise<number> {
  const meta =
    typeof file === 'string'
      ? file.replace(/\.json$/, '.meta.json')
      : new URL(file.href.replace(/\.json$/, '.meta.json'));
  try {
    const time = Date.parse(
      (JSON.parse(await fs.readFile(meta, 'utf8')) as { captured_at?: string }).captured_at ?? '',
    );
    return Number.isFinite(time) ? time : mtimeMs;
  } catch {
    return mtimeMs;
  }
}

/** Read an OpenRouter `/models` capture file into a table; undefined when missing or invalid. */
export async function readModelListFile(file: string | URL, source: PriceTableSource): Promise<PriceTable | undefined> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    const parsed = parseModelList(JSON.parse(text));
    return parsed ? buildPriceTable(parsed.models, source, await capturedAt(file, stat.mtimeMs)) : undefined;
  } catch {
    return undefined;
  }
}

/** Read `last-good.json` from a directory; undefined when missing or invalid. */
export async function readLastGoodFile(directory: string): Promise<PriceTable | undefined> {
  try {
    return parseStoredTable(JSON.parse(await fs.readFile(path.join(directory, LAST_GOOD_FILE), 'utf8')));
  } catch {
    return undefined;
  }
}

/** Write `last-good.json` crash-safely (temp file + rename). */
export async function writeLastGoodFile(directory: string, table: PriceTable): Promise<void> {
  await fs.mkdir(directory, { recursive: true });
  const target = path.join(directory, LAST_GOOD_FILE);
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(temporary, JSON.stringify(table));
  await fs.rename(temporary, target);
}
