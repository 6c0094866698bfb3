import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXACT_TOTAL_UP_TO } from '../../../src/ads/ads.service';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { DatabaseSync } from 'node:sqlite';
import { SqliteReader } from '../../../src/store/sqlite/sqlite-reader';
import { ReaderColumns } from '../../../src/store/sqlite/shared-columns';
import { words } from '../../../src/store/text';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { FIXTURE_RECORDS } from '../store-fixture';

/** The live writer publishes its columns with each batch; a reader of the same file in the process takes them. */
describe('columns shared by the live writer', () => {
  let dir: string;
  let file: string;
  let writer: SqliteWriter;
  const first = FIXTURE_RECORDS[0] as AdRecord;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-shared-'));
    file = join(dir, 'ads.sqlite');
    writer = new SqliteWriter(file, { wordBitsMinShare: 0, wordBitsMaxShare: 1 });
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
  });
  afterEach(async () => {
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Live batches: a new ad with a new advertiser and word, a re-sighting, another one, the advertiser renamed. */
  const shared = { ...first, id: 'ad_shared_1', advertiser_id: 'adv_shared', advertiser_name: 'Shared Co', title: 'zebracorn offer' };
  const batches = (): AdRecord[][] => [
    [shared],
    [{ ...first, status_today: first.status_today === 'active' ? 'inactive' : 'active', countries: ['ZZ'] }],
    [{ ...shared, impressions: first.impressions + 1 }],
    [{ ...shared, impressions: first.impressions + 2, advertiser_name: 'Shared Renamed' }],
  ];

  it('a reader takes each batch from the writer without deriving the columns itself, and answers as one that derives them', async () => {
    const taking = new SqliteReader(file);
    const deriving = new SqliteReader(file, { follow: false });
    try {
      taking.warmUp();
      deriving.warmUp();
      expect(taking.columnsDerived).toBe(1); // the load at start: no batch published yet
      for (const [b, batch] of batches().entries()) {
        await writer.apply(batch);
        for (const reader of [taking, deriving]) {
          expect(reader.countAds({ advertiserId: 'adv_shared' }, EXACT_TOTAL_UP_TO).total).toBe(1);
          expect(reader.countAds({ country: 'ZZ' }, EXACT_TOTAL_UP_TO).total).toBe(b >= 1 ? 1 : 0);
        }
        const query = { filter: { words: ['zebracorn'] }, sort: 'date' as const, order: 'desc' as const, limit: 5 };
        expect(taking.searchAds(query)).toEqual(deriving.searchAds(query));
        const trend = { dimension: 'geo' as const, filter: {}, window: { from: '2020-01-01', to: '2030-01-01' }, previous: { from: '2010-01-01', to: '2019-12-31' }, limit: 50 };
        expect(taking.trends(trend)).toEqual(deriving.trends(trend));
        expect(taking.catalog()).toEqual(deriving.catalog());
        const cards = { ...trend, dimension: 'advertisers/cards' as const };
        expect(taking.trends(cards)).toEqual(deriving.trends(cards));
        if (b === 3) expect(JSON.stringify(taking.trends(cards))).toContain('Shared Renamed');
      }
      expect(taking.columnsDerived).toBe(1);
      expect(deriving.columnsDerived).toBe(1 + batches().length);
    } finally {
      taking.close();
      deriving.close();
    }
  });

  it('the writer writes the buffers of a version again only once no read is on it (decisions/0020)', async () => {
    // Re-sightings that move one ad's impressions, batch after batch (its position changes in place in every version),
    // and a new ad with its words (new positions set bits past the version read).
    const seen = (k: number): AdRecord[] => [
      { ...first, impressions: first.impressions + k },
      // First seen after every stored ad: a tail batch (the merge builds new buffers anyway).
      { ...first, id: `ad_pinned_${k}`, first_seen_date: `2031-01-${10 + k}`, last_seen_date: `2031-01-${10 + k}`, days_active: 0 },
    ];
    const db = new DatabaseSync(file, { readOnly: true });
    const columns = new ReaderColumns(db, file);
    await writer.apply(seen(1));
    try {
      columns.beforeRead();
      db.exec('BEGIN');
      const state = columns.current();
      if (!state) throw new Error('no columns published');
      expect(columns.derivations).toBe(0);
      const { impressions } = state.columnar.cols;
      const before = [...impressions];
      // A word of the ad's title: every word of the load has a bitset here (wordBitsMinShare 0).
      const [word] = words(first.title);
      const bits = word === undefined ? undefined : state.wordBits.get(word);
      if (!bits) throw new Error('no bitset for a word of the title');
      const bitsBefore = [...bits];
      // Versions 2 to 5 while the read of version 1 goes on: none is built in version 1's buffers.
      for (let k = 2; k <= 5; k++) await writer.apply(seen(k));
      expect([...impressions]).toEqual(before);
      expect([...bits]).toEqual(bitsBefore);
      const whileRead = writer.movingBuffers;
      db.exec('COMMIT');
      columns.afterRead();
      for (let k = 6; k <= 9; k++) await writer.apply(seen(k));
      // No read held back the versions since: each one is built in the buffers of the version before the previous.
      expect(writer.movingBuffers.reused).toBeGreaterThan(whileRead.reused);
      expect(writer.movingBuffers.reused - whileRead.reused).toBeGreaterThanOrEqual(3);
    } finally {
      if (db.isTransaction) db.exec('COMMIT');
      columns.close();
      db.close();
    }
  });

  it('a read whose transaction sees a batch published after it pinned takes that batch\'s publication', async () => {
    const [one, two] = batches();
    const db = new DatabaseSync(file, { readOnly: true });
    const columns = new ReaderColumns(db, file);
    try {
      await writer.apply(one as AdRecord[]);
      columns.beforeRead();
      // Committed and posted between the pin and the transaction: the read waits for (or finds) its message.
      await writer.apply(two as AdRecord[]);
      db.exec('BEGIN');
      expect(columns.current()?.columnar.codes.countries.has('ZZ')).toBe(true);
      db.exec('COMMIT');
      columns.afterRead();
      expect(columns.derivations).toBe(0);
    } finally {
      columns.close();
      db.close();
    }
  });

  it('a reader that starts after the writer published derives the columns at start, then takes the next batch', async () => {
    const [one, two] = batches();
    await writer.apply(one as AdRecord[]);
    const late = new SqliteReader(file);
    try {
      expect(late.countAds({ advertiserId: 'adv_shared' }, EXACT_TOTAL_UP_TO).total).toBe(1);
      const atStart = late.columnsDerived; // the stored columns loaded, the first batch replayed
      expect(atStart).toBeGreaterThan(0);
      await writer.apply(two as AdRecord[]);
      expect(late.countAds({ country: 'ZZ' }, EXACT_TOTAL_UP_TO).total).toBe(1);
      expect(late.columnsDerived).toBe(atStart);
    } finally {
      late.close();
    }
  });
});
