import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pageOwners, walFramePages } from '@adintel/testing';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { feedSince, positionOf } from '../change-feed.contract';
import { FIXTURE_RECORDS } from '../store-fixture';

/**
 * ADR 0017: a re-sighting that moves only status, last seen, days active, activity days, popularity or impressions
 * writes the `ads` row alone; every reader takes those values from the row.
 */
describe('a re-sighting that moves only the moving values', () => {
  let dir: string;
  let file: string;
  let writer: SqliteWriter;
  let store: SqliteStore;
  const base = FIXTURE_RECORDS.find((r) => r.status_today === 'inactive') as AdRecord;
  const newestDay = FIXTURE_RECORDS.reduce((max, r) => (r.last_seen_date > max ? r.last_seen_date : max), '');
  /** The base ad seen again a day after the data's newest: active, its counters moved, nothing else. */
  const moved: AdRecord = {
    ...base,
    status_today: 'active',
    last_seen_date: nextDay(newestDay),
    days_active: base.days_active + 40,
    activity_days_amount: base.activity_days_amount + 1,
    popularity: base.popularity + 1.5,
    impressions: base.impressions + 1_234,
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-moving-'));
    file = join(dir, 'ads.sqlite');
    writer = new SqliteWriter(file);
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
    store = new SqliteStore({ file, workers: 0 });
  });

  afterEach(async () => {
    await store.close();
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The ad's stored doc row, as bytes, and its ads row's moving values. */
  function stored(id: string) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db
        .prepare(
          `SELECT a.rid, a.status, a.last_seen, a.days_active, a.activity_days, a.popularity, a.impressions, d.doc, d.content, d.countries
           FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?`,
        )
        .get(id) as { rid: number; doc: string; content: string; status: string; impressions: number };
    } finally {
      db.close();
    }
  }

  /** What every reader must show of the moved ad. */
  const movedValues = (ad: AdRecord) => ({
    status_today: ad.status_today,
    last_seen_date: ad.last_seen_date,
    days_active: ad.days_active,
    activity_days_amount: ad.activity_days_amount,
    popularity: ad.popularity,
    impressions: ad.impressions,
  });

  it('writes the ads row, leaves its doc row unwritten, and every reader shows the new values', async () => {
    const since = await positionOf(store);
    const before = stored(base.id);
    expect(await writer.apply([moved])).toMatchObject({ replaced: 1, added: 0, unchanged: 0 });
    const after = stored(base.id);
    // Same row id, same doc bytes, same digest: ad_docs was not written.
    expect(after.rid).toBe(before.rid);
    expect(after.doc).toBe(before.doc);
    expect(after.content).toBe(before.content);
    expect(after).toMatchObject({ status: 'active', impressions: moved.impressions });

    const expected = movedValues(moved);
    expect(await store.getAd(base.id)).toMatchObject(expected);
    // A page on the columns and a page in SQL (a words filter without bitsets runs in SQL or on FTS candidates).
    for (const filter of [{ advertiserId: base.advertiser_id }, { words: base.title.toLowerCase().split(/\s+/).slice(0, 1) }]) {
      const page = await store.searchAds({ filter, sort: 'impressions', order: 'desc', limit: 50 });
      expect(page.rows.find((r) => r.id === base.id)).toMatchObject(expected);
    }
    const feed = await store.adChanges({ filter: {}, since, limit: 50, countUpTo: 50 });
    if (feed.outcome !== 'page') throw new Error(feed.outcome);
    expect(feed.page.rows.find((r) => r.id === base.id)).toMatchObject({ ...expected, change: 'resumed' });
    expect(await feedSince(store, since)).toContainEqual([base.id, 'resumed']);

    // The same sighting again changes nothing.
    expect(await writer.apply([moved])).toMatchObject({ unchanged: 1, replaced: 0 });
  });

  /** The tables and indexes whose pages `run` wrote (the write-ahead log's frames, emptied first). */
  async function pagesWrittenBy(run: () => Promise<unknown>): Promise<Set<string>> {
    const db = new DatabaseSync(file);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const names = pageOwners(db);
    await run();
    const { pages } = walFramePages(file);
    db.close();
    return new Set(pages.map((page) => names.get(page) ?? 'a new page'));
  }

  it('writes the ads row and no page of ad_docs, the text index or any index on ads', async () => {
    // No index holds status, last seen, activity, popularity or impressions (decisions/0019), on the same day or a later one.
    const notWritten = (pages: Set<string>) => [...pages].filter((name) => name.startsWith('ads_by_') || name === 'ad_docs' || name.startsWith('ads_fts'));
    const sameDay: AdRecord = { ...moved, last_seen_date: base.last_seen_date, days_active: base.days_active };
    const written = await pagesWrittenBy(() => writer.apply([sameDay]));
    expect(written).toContain('ads');
    expect(notWritten(written)).toEqual([]);
    expect(await store.getAd(base.id)).toMatchObject(movedValues(sameDay));
    const laterDay = await pagesWrittenBy(() => writer.apply([moved]));
    expect(laterDay).toContain('ads');
    expect(notWritten(laterDay)).toEqual([]);
    expect(await store.getAd(base.id)).toMatchObject(movedValues(moved));
  });

  it('shows the newest values after a change that rewrites the doc or replaces the row', async () => {
    await writer.apply([moved]);
    const first = stored(base.id);
    // Countries changed: the doc is rewritten in place (same row id).
    const recountried: AdRecord = { ...moved, countries: [...moved.countries, 'ZZ'], impressions: moved.impressions + 1 };
    await writer.apply([recountried]);
    expect(stored(base.id)).toMatchObject({ rid: first.rid, countries: recountried.countries.join(',') });
    expect(stored(base.id).doc).not.toBe(first.doc);
    expect(await store.getAd(base.id)).toMatchObject({ ...movedValues(recountried), countries: recountried.countries });
    // Then moving values only again, then the title: the row is replaced (a new row id).
    const again: AdRecord = { ...recountried, impressions: recountried.impressions + 1, popularity: 0.5 };
    await writer.apply([again]);
    const rid = stored(base.id).rid;
    const retitled: AdRecord = { ...again, title: `${again.title} anew`, impressions: again.impressions + 1 };
    expect(await writer.apply([retitled])).toMatchObject({ replaced: 1 });
    expect(stored(base.id).rid).not.toBe(rid);
    expect(await store.getAd(base.id)).toMatchObject({ ...movedValues(retitled), title: retitled.title });
    const page = await store.searchAds({ filter: { advertiserId: base.advertiser_id }, sort: 'most_popular', order: 'asc', limit: 50 });
    expect(page.rows.find((r) => r.id === base.id)).toMatchObject(movedValues(retitled));
  });

  it('takes the row-only path on a store whose digests an earlier version wrote (of the whole record)', async () => {
    const db = new DatabaseSync(file);
    // An earlier version's digest: base64url SHA-1 of the whole record (no "k:" mark).
    db.exec("UPDATE ad_docs SET content = 'AAAAAAAAAAAAAAAAAAAAAAAAAAA'");
    db.close();
    const before = stored(base.id);
    expect(await writer.apply([base])).toMatchObject({ unchanged: 1 });
    expect(await writer.apply([moved])).toMatchObject({ replaced: 1 });
    expect(stored(base.id).doc).toBe(before.doc);
    expect(await store.getAd(base.id)).toMatchObject(movedValues(moved));
  });

  it('rewrites the doc when a kept value changes with the moving ones', async () => {
    const before = stored(base.id);
    const renamed: AdRecord = { ...moved, advertiser_name: `${moved.advertiser_name} Ltd` };
    expect(await writer.apply([renamed])).toMatchObject({ replaced: 1 });
    const after = stored(base.id);
    expect(after.rid).toBe(before.rid);
    expect(after.content).not.toBe(before.content);
    expect(await store.getAd(base.id)).toMatchObject(movedValues(renamed));
  });
});

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
