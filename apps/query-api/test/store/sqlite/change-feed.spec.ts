import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AdFilter, AdRecord, ChangePosition } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { describeChangeFeedContract, feedSince, positionOf } from '../change-feed.contract';
import { FIXTURE_LINES, FIXTURE_RECORDS } from '../store-fixture';
import { toAdRecord } from '../../../src/ingest/ad-line';

/** A store loaded offline, then fed live by a SqliteWriter on the same file; read in-process. */
async function openSqlite(records: AdRecord[]) {
  const dir = mkdtempSync(join(tmpdir(), 'query-feed-'));
  const file = join(dir, 'ads.sqlite');
  const writer = new SqliteWriter(file);
  await writer.write(records);
  await writer.finish();
  const store = new SqliteStore({ file, workers: 0 });
  return {
    file,
    writer,
    store,
    apply: async (batch: readonly AdRecord[]) => {
      await writer.apply(batch);
    },
    close: async () => {
      await store.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeChangeFeedContract('sqlite', openSqlite);

describe('SQLite change log', () => {
  it('drops changes older than the retention window: a watermark before them is expired', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await subject.apply([{ ...base, id: 'ad_old' }]);
      const between = await positionOf(subject.store);
      // Age the logged change past the 30-day default, as if the batch had come 31 days ago.
      const db = new DatabaseSync(subject.file);
      db.prepare('UPDATE ad_feed SET at = ?').run(new Date(Date.now() - 31 * 24 * 3_600_000).toISOString());
      db.close();
      await subject.apply([{ ...base, id: 'ad_recent' }]);
      expect((await subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('expired');
      expect(await feedSince(subject.store, between)).toEqual([['ad_recent', 'new']]);
    } finally {
      await subject.close();
    }
  });

  it('starts over with a reload: a watermark of the data before it is foreign', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      await subject.writer.clear();
      await subject.writer.write(FIXTURE_RECORDS);
      await subject.writer.finish();
      expect((await subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('foreign');
    } finally {
      await subject.close();
    }
  });

  it('shows an ad the day moved past as inactive, and its status filter sees the status the ad has now', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      const activeOnTheDay = FIXTURE_LINES.filter((l) => l.status_today === 'active' && l.last_seen_date === '2026-01-31');
      const [kept, ...passed] = activeOnTheDay;
      if (!kept || !passed.length) throw new Error('the fixture needs several ads active on its day');
      await subject.apply([toAdRecord({ ...kept, last_seen_date: '2026-02-01' })]);
      const page = await subject.store.adChanges({ filter: {}, since, limit: 50, countUpTo: 50 });
      if (page.outcome !== 'page') throw new Error(`the feed answered ${page.outcome}`);
      const ended = page.page.rows.filter((r) => r.change === 'ended');
      expect(ended.map((r) => r.id).sort()).toEqual(passed.map((l) => l.id).sort());
      for (const row of ended) expect(row.status_today).toBe('inactive');
      expect((await feedSince(subject.store, since, { status: 'active' })).map(([id]) => id)).toEqual([]);
      expect((await feedSince(subject.store, since, { status: 'inactive' })).map(([id]) => id).sort()).toEqual(passed.map((l) => l.id).sort());
    } finally {
      await subject.close();
    }
  });

  it('gives every page the total of the whole feed, as a plain search does', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await subject.apply(['f1', 'f2', 'f3', 'f4', 'f5'].map((id) => ({ ...base, id: `ad_${id}` })));
      for (const countUpTo of [100, 3]) {
        const totals: { total: number; estimated: boolean }[] = [];
        let after: { value: string | number; id: string } | undefined;
        for (;;) {
          const result = await subject.store.adChanges({ filter: {}, since, limit: 2, countUpTo, ...(after ? { after } : {}) });
          if (result.outcome !== 'page') throw new Error(`the feed answered ${result.outcome}`);
          totals.push(result.count);
          if (!result.page.hasMore || !result.page.lastKey) break;
          after = result.page.lastKey;
        }
        expect(totals).toEqual(countUpTo === 100 ? Array(3).fill({ total: 5, estimated: false }) : Array(3).fill({ total: 3, estimated: true }));
      }
    } finally {
      await subject.close();
    }
  });

  it('answers the same whether its reader read the log batch by batch or at once, and follows an ad whose row was replaced', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    const filters: AdFilter[] = [{}, { country: 'US' }, { words: ['sale'] }, { status: 'active' }, { advertiserId: 'adv_acme' }];
    const feeds = async (store: typeof subject.store, since: ChangePosition) => Promise.all(filters.map((filter) => feedSince(store, since, filter, 3)));
    try {
      const since = await positionOf(subject.store);
      const line = (id: string) => FIXTURE_LINES.find((l) => l.id === id) ?? (FIXTURE_LINES[0] as (typeof FIXTURE_LINES)[number]);
      const ad01 = line('ad_01');
      const batches: AdRecord[][] = [
        [toAdRecord({ ...ad01, countries: [...ad01.countries, 'DE'] }), toAdRecord({ ...line('ad_02'), id: 'ad_new_a' })],
        // Only first_seen_date moves: the writer replaces the ad's row (a new row id) and the log has nothing to say.
        [toAdRecord({ ...ad01, countries: [...ad01.countries, 'DE'], first_seen_date: '2025-12-30' })],
        [toAdRecord({ ...line('ad_02'), id: 'ad_new_b', title: 'Sale of the year' }), toAdRecord({ ...line('ad_02'), status_today: 'active', last_seen_date: '2026-01-31' })],
        [toAdRecord({ ...ad01, last_seen_date: '2026-02-01', first_seen_date: '2025-12-30', countries: [...ad01.countries, 'DE'] })],
      ];
      for (const batch of batches) {
        await subject.apply(batch);
        await feeds(subject.store, since); // the log read forward batch by batch
      }
      const stepwise = await feeds(subject.store, since);
      const fresh = new SqliteStore({ file: subject.file, workers: 0 });
      try {
        expect(await feeds(fresh, since)).toEqual(stepwise);
      } finally {
        await fresh.close();
      }
      expect(new Map(stepwise[0])).toEqual(
        new Map([
          ['ad_01', 'changed'],
          ['ad_new_a', 'new'],
          ['ad_new_b', 'new'],
          // ad_02 came back active on the 31st, and the next day moved past it again: as it was.
          ...FIXTURE_LINES.filter((l) => l.status_today === 'active' && l.last_seen_date === '2026-01-31' && l.id !== 'ad_01').map((l) => [l.id, 'ended'] as const),
        ]),
      );
      expect(stepwise[2]?.map(([id]) => id).sort()).toEqual(['ad_01', 'ad_new_b']);
    } finally {
      await subject.close();
    }
  });

  it('drops a log of the layout before rows were numbered: its watermarks are expired, never answered short', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      await subject.apply([{ ...(FIXTURE_RECORDS[1] as AdRecord), id: 'ad_before' }]);
      const atUpgrade = await positionOf(subject.store);
      await subject.writer.close();
      const db = new DatabaseSync(subject.file);
      db.exec(`DROP TABLE ad_feed; CREATE TABLE ad_feed (seq INTEGER NOT NULL, id TEXT NOT NULL, before TEXT, after TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (seq, id)) WITHOUT ROWID;`);
      db.close();
      const writer = new SqliteWriter(subject.file);
      try {
        await writer.apply([{ ...(FIXTURE_RECORDS[1] as AdRecord), id: 'ad_after' }]);
        expect((await subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('expired');
        // From the position the upgrade found, the new log misses nothing.
        expect(await feedSince(subject.store, atUpgrade)).toEqual([['ad_after', 'new']]);
      } finally {
        await writer.close();
      }
    } finally {
      await subject.close();
    }
  });

  it('follows, through a filter’s own ads, an ad whose row a batch replaced after the log was read', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      const ad01 = FIXTURE_LINES.find((l) => l.id === 'ad_01');
      const other = FIXTURE_LINES.find((l) => l.advertiser.id !== 'adv_acme');
      if (!ad01 || !other) throw new Error('the fixture changed');
      const moved = { ...ad01, countries: [...ad01.countries, 'DE'] };
      // Many more changes of another advertiser: the feed visits adv_acme's ads rather than the whole log.
      const others = Array.from({ length: 40 }, (_, i) => toAdRecord({ ...other, id: `ad_other_${i}` }));
      await subject.apply([toAdRecord(moved), ...others]);
      const filter: AdFilter = { advertiserId: 'adv_acme' };
      expect(await feedSince(subject.store, since, filter)).toEqual([['ad_01', 'changed']]);
      // Only first_seen_date moves: the writer gives ad_01 a new row id; the reader held the old one.
      await subject.apply([toAdRecord({ ...moved, first_seen_date: '2025-12-30' })]);
      expect(await feedSince(subject.store, since, filter)).toEqual([['ad_01', 'changed']]);
    } finally {
      await subject.close();
    }
  });
});
