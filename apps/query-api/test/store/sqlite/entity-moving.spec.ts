import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { addDays } from '../../../src/store/text';
import { firstDifference } from '../live-sightings';
import { offlineLoad } from './offline-load';

/**
 * decisions/0020: what a re-sighting moves in an entity's record (active ads, first and last seen dates) is kept in
 * `entity_moving`; a batch that moves only those leaves the records' docs as they are, and every reader takes the
 * values from the row. A store written before the table gets it filled when a writer opens it.
 */
describe('the moving values of entity records', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-entity-moving-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const base = [...generateDemoAds(300, 4244)].map(toAdRecord);
  const newest = base.map((ad) => ad.last_seen_date).reduce((m, d) => (d > m ? d : m));
  // An advertiser's ad seen again a day after every stored sighting, its status flipped: its advertiser's and its
  // creative's last seen date and active count move, nothing else of theirs.
  const seen = base.find((ad) => base.filter((other) => other.advertiser_id === ad.advertiser_id).length >= 3) as AdRecord;
  const again: AdRecord = {
    ...seen,
    last_seen_date: addDays(newest, 1),
    days_active: seen.days_active + 1,
    status_today: seen.status_today === 'active' ? 'inactive' : 'active',
  };
  const final = base.map((ad) => (ad.id === seen.id ? again : ad));

  const docsOf = (file: string) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare('SELECT kind, id, ads_total, row_doc, full_doc FROM entities ORDER BY kind, id').all();
    } finally {
      db.close();
    }
  };

  it('a re-sighting moves the row alone: the records stand, readers show the values it moved', async () => {
    const expectedFile = await offlineLoad(join(dir, 'expected.sqlite'), final);
    const file = await offlineLoad(join(dir, 'live.sqlite'), base);
    const before = docsOf(file);
    const writer = new SqliteWriter(file);
    await writer.apply([again]);
    await writer.close();
    expect(docsOf(file)).toEqual(before);
    const [expected, live] = [new SqliteStore({ file: expectedFile, workers: 0 }), new SqliteStore({ file, workers: 0 })];
    try {
      const advertiser = await live.getAdvertiser(seen.advertiser_id);
      expect(advertiser?.last_seen_date).toBe(again.last_seen_date);
      expect(advertiser).toEqual(await expected.getAdvertiser(seen.advertiser_id));
      expect(await firstDifference(expected, live, final)).toBeNull();
    } finally {
      await Promise.all([expected.close(), live.close()]);
    }
  }, 60_000);

  it('a store written before the table is read from its docs, and filled when a writer opens it', async () => {
    const file = await offlineLoad(join(dir, 'older.sqlite'), base);
    const db = new DatabaseSync(file);
    const rows = db.prepare('SELECT * FROM entity_moving ORDER BY kind, id').all();
    expect(rows.length).toBeGreaterThan(0);
    db.exec('DROP TABLE entity_moving');
    db.close();
    const reference = await offlineLoad(join(dir, 'reference.sqlite'), base);
    const [expected, older] = [new SqliteStore({ file: reference, workers: 0 }), new SqliteStore({ file, workers: 0 })];
    try {
      expect(await firstDifference(expected, older, base)).toBeNull();
    } finally {
      await older.close();
    }
    await new SqliteWriter(file).close();
    const filled = new DatabaseSync(file, { readOnly: true });
    expect(filled.prepare('SELECT * FROM entity_moving ORDER BY kind, id').all()).toEqual(rows);
    filled.close();
    const reopened = new SqliteStore({ file, workers: 0 });
    try {
      expect(await firstDifference(expected, reopened, base)).toBeNull();
    } finally {
      await Promise.all([expected.close(), reopened.close()]);
    }
  }, 60_000);
});
