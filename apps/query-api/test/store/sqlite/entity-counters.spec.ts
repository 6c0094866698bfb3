import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { DEFAULT_ROLLUP_OPTIONS } from '../../../src/store/sqlite/rollups';
import { firstDifference, liveSightings } from '../live-sightings';
import { offlineLoad } from './offline-load';

/**
 * The counters a store keeps (decisions/0014): no creative counters and no dates of webmasters, domains or apps. A store
 * an earlier version wrote still holds such rows; nothing may read them, before or after live batches.
 */
describe('entity counters', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-entity-counters-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const { firstLoad, batches, finalRecords } = liveSightings(1_200);

  it('a load stores none for creatives and no dates at all (decisions/0016: records take them by arithmetic)', async () => {
    const file = join(dir, 'load.sqlite');
    await offlineLoad(file, finalRecords, DEFAULT_ROLLUP_OPTIONS);
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const kinds = (sql: string) => (db.prepare(sql).all() as { kind: string }[]).map((r) => r.kind);
      expect(kinds('SELECT DISTINCT kind FROM entity_facets ORDER BY kind')).toEqual(['advertiser', 'app', 'domain', 'store', 'webmaster']);
      expect(kinds("SELECT DISTINCT kind FROM entity_facets WHERE facet IN ('first', 'last') ORDER BY kind")).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("a store an earlier version wrote (stale creative counters and dates) answers as a fresh load after live batches", async () => {
    const expectedFile = join(dir, 'expected.sqlite');
    await offlineLoad(expectedFile, finalRecords, DEFAULT_ROLLUP_OPTIONS);

    const file = join(dir, 'earlier.sqlite');
    await offlineLoad(file, firstLoad, DEFAULT_ROLLUP_OPTIONS);
    // What an earlier version kept beside: counters of every creative, dates of every webmaster, domain and app, and
    // (before decisions/0016) the dates of advertisers and the store, here with values no record could show (a reader
    // of them would answer wrongly).
    const db = new DatabaseSync(file);
    db.exec(`INSERT INTO entity_facets (kind, id, facet, key, n)
      SELECT DISTINCT 'creative', creative_id, f.facet, f.key, 7 FROM ads,
        (SELECT '#ads' AS facet, '' AS key UNION ALL SELECT 'first', '1999-01-01' UNION ALL SELECT 'last', '2099-12-31'
         UNION ALL SELECT 'format', 'audio' UNION ALL SELECT 'platform', 'myspace') f;
      INSERT OR IGNORE INTO entity_facets (kind, id, facet, key, n)
      SELECT kind, id, f.facet, f.key, 3 FROM entities, (SELECT 'first' AS facet, '1999-01-01' AS key UNION ALL SELECT 'last', '2099-12-31') f
      WHERE kind IN ('webmaster', 'domain', 'app');
      INSERT OR IGNORE INTO entity_facets (kind, id, facet, key, n)
      SELECT kind, id, f.facet, f.key, 5 FROM (SELECT 'advertiser' AS kind, id FROM entities WHERE kind = 'advertiser' UNION ALL SELECT 'store', ''),
        (SELECT 'first' AS facet, '1999-01-01' AS key UNION ALL SELECT 'last', '2099-12-31') f;`);
    db.close();

    const writer = new SqliteWriter(file);
    for (const batch of batches) await writer.apply(batch);
    await writer.close();

    const expected = new SqliteStore({ file: expectedFile, workers: 0 });
    const earlier = new SqliteStore({ file, workers: 0 });
    try {
      expect(await firstDifference(expected, earlier, finalRecords)).toBeNull();
    } finally {
      await Promise.all([expected.close(), earlier.close()]);
    }
  }, 60_000);
});
