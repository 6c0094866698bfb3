import { join } from 'node:path';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { DEFAULT_ROLLUP_OPTIONS, type RollupOptions } from '../../../src/store/sqlite/rollups';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
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

/**
 * Under `dir`, `load` loaded offline and `batches` applied to it live, beside one offline load of `final` (what the
 * batches must end as): both stores, opened in-process (default rollup options).
 */
export async function liveBesideOffline(dir: string, name: string, load: AdRecord[], batches: AdRecord[][], final: AdRecord[]) {
  const offlineFile = await offlineLoad(join(dir, `${name}-offline.sqlite`), final, DEFAULT_ROLLUP_OPTIONS);
  const file = await offlineLoad(join(dir, `${name}-live.sqlite`), load, DEFAULT_ROLLUP_OPTIONS);
  const writer = new SqliteWriter(file, DEFAULT_ROLLUP_OPTIONS);
  for (const batch of batches) await writer.apply(batch);
  await writer.close();
  return { expected: new SqliteStore({ file: offlineFile, workers: 0 }), live: new SqliteStore({ file, workers: 0 }) };
}
