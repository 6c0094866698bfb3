import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { firstDifference, liveSightings } from '../live-sightings';

const EVERY_WORD = { wordBitsMinShare: 0.01, wordBitsMaxShare: 0.6 };

/**
 * Every row of the rollup tables and the catalog, in key order: what two loads of the same ads must both hold; with
 * `columns`, the ad columns too (they hold row ids: the same only when both loads gave each ad the same one).
 */
function rollupTables(file: string, columns = true): unknown[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return [
      db.prepare('SELECT * FROM entity_facets ORDER BY kind, id, facet, key').all(),
      db.prepare('SELECT * FROM entities ORDER BY kind, id').all(),
      db.prepare('SELECT * FROM name_index ORDER BY kind, suffix, id').all(),
      db.prepare("SELECT * FROM meta WHERE key IN ('catalog', 'value_counts') ORDER BY key").all(),
      columns ? db.prepare('SELECT name, data FROM trend_columns ORDER BY name').all() : [],
    ];
  } finally {
    db.close();
  }
}

/** Writes `batches` with one writer and finishes; `reopenAfterFirst`: the rest with a writer opened on the rows of the first. */
async function load(file: string, batches: AdRecord[][], reopenAfterFirst = false): Promise<void> {
  let writer = new SqliteWriter(file, EVERY_WORD, undefined, { offline: true });
  for (const [i, batch] of batches.entries()) {
    await writer.write(batch);
    if (reopenAfterFirst && i === 0) {
      await writer.close();
      writer = new SqliteWriter(file, EVERY_WORD, undefined, { offline: true });
    }
  }
  await writer.finish();
  await writer.close();
}

describe('offline load: rollups gathered while the rows are written', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-offline-load-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const records = liveSightings(2_000).finalRecords;
  const batches = (list: AdRecord[]) => Array.from({ length: Math.ceil(list.length / 300) }, (_, i) => list.slice(i * 300, i * 300 + 300));

  it('give the store a load that reads the rows back gives (every table, every data tool)', async () => {
    const gathered = join(dir, 'gathered.sqlite');
    const readBack = join(dir, 'read-back.sqlite');
    await load(gathered, batches(records));
    // A writer opened on a store that holds rows (an ingest adding to a store) reads every row back in finish().
    await load(readBack, batches(records), true);
    expect(rollupTables(gathered)).toEqual(rollupTables(readBack));
    const a = new SqliteStore({ file: gathered, workers: 0 });
    const b = new SqliteStore({ file: readBack, workers: 0 });
    try {
      expect(await firstDifference(a, b, records)).toBeNull();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('an id written twice in one load is stored once, as its last version', async () => {
    const twice = join(dir, 'twice.sqlite');
    const once = join(dir, 'once.sqlite');
    const first = records.slice(0, 500).map((ad) => ({ ...ad, status_today: 'inactive' as const, countries: ['ZZ'] }));
    await load(twice, [first, ...batches(records)]);
    await load(once, batches(records));
    expect(rollupTables(twice, false)).toEqual(rollupTables(once, false));
    const a = new SqliteStore({ file: twice, workers: 0 });
    const b = new SqliteStore({ file: once, workers: 0 });
    try {
      expect(await firstDifference(a, b, records)).toBeNull();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});
