import type { AdRecord } from '../../../src/store/ad-store.port';
import type { RollupOptions } from '../../../src/store/sqlite/rollups';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';

/** Rollup options that give nearly every word a bitset, so the tests read the columns' word paths too. */
export const EVERY_WORD = { wordBitsMinShare: 0.01, wordBitsMaxShare: 0.6 };

/** A SQLite store at `file` loaded offline from scratch with `records`: what live batches must equal. */
export async function offlineLoad(file: string, records: AdRecord[], options: RollupOptions = EVERY_WORD): Promise<string> {
  const writer = new SqliteWriter(file, options);
  await writer.write(records);
  await writer.finish();
  await writer.close();
  return file;
}
