import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Write `count` usage records for each user into the SQLite file of `codeRoot`'s Eunoe, through
 * that checkout's own store and ledger (so older checkouts get their own layout), all in the
 * current UTC month. Returns how long seeding took in seconds.
 */
export async function seedLedger(
  codeRoot: string,
  sqlitePath: string,
  users: Array<{ id: string; count: number }>,
): Promise<number> {
  const load = (file: string) => import(pathToFileURL(path.join(codeRoot, 'src', file)).href);
  // The layout moved over time (BENCH_CODE_ROOT may be an older checkout): the first path that exists.
  const loadFirst = async (...files: string[]) => {
    for (const file of files) if (existsSync(path.join(codeRoot, 'src', file))) return load(file);
    throw new Error(`none of ${files.join(', ')} in ${codeRoot}/src`);
  };
  const { openSqliteDatabase } = await load('state/sqlite/open-sqlite-database.ts');
  const { SqliteStateStore } = await load('state/sqlite/sqlite-state-store.ts');
  const { createLedger } = await loadFirst('runtime/usage/ledger.ts', 'usage/ledger.ts');
  const { silentLogger } = await loadFirst('core/util/logger.ts', 'util/logger.ts');
  const started = performance.now();
  const store = new SqliteStateStore({ db: openSqliteDatabase(sqlitePath), file: sqlitePath, logger: silentLogger() });
  const ledger = createLedger(store);
  const now = Date.now();
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  for (const user of users) {
    for (let index = 0; index < user.count; index++) {
      const time = monthStart + Math.floor(((now - monthStart) * index) / user.count);
      await ledger.record({
        messageId: `${user.id}-${index}`,
        time,
        userId: user.id,
        chatId: `chat-${index % 50}`,
        model: 'gpt-4o',
        pricedAs: 'openai/gpt-4o',
        promptTokens: 1000,
        completionTokens: 100,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        totalTokens: 1100,
        cost: '0.0000035',
        costSource: 'computed',
        usageSource: 'reported',
      });
    }
  }
  await store.close();
  return (performance.now() - started) / 1000;
}
