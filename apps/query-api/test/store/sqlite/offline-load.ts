import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';

/** Rollup options that give nearly every word a bitset, so the tests read the columns' word paths too. */
export const EVERY_WORD = { wordBitsMinShare: 0.01, wordBitsMaxShare: 0.6 };

/** A SQLite store at `file` loaded offline from scratch with `records`: what live batches must equal. */
export async function offlineLoad(file: string, records: AdRecord[]): Promise<string> {
  const writer = new SqliteWriter(file, EVERY_WORD);
  await writer.write(records);
  await writer.finish();
  await writer.close();
  return file;
}
