import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AdChange } from '@adintel/contracts';
import type { AdChangesQuery, AdFilter, AdRecord, ChangePosition } from '../../../src/store/ad-store.port';
import { ChangeFeedReader, feedReadStats } from '../../../src/store/sqlite/change-feed-reader';
import { LiveColumns } from '../../../src/store/sqlite/live-columns';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { difference, feedSince, positionOf, snapshotAfter } from '../change-feed.contract';
import { liveSightings } from '../live-sightings';
import type { AdLine } from '../../../src/ingest/ad-line';
import { toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import { dayNumber } from '../../../src/store/text';

describe('the change feed replayed from any watermark equals the difference of two snapshots (SQLite)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-feed-eq-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A store loaded offline with `firstLoad`, its live writer, and a store reading it (no workers). */
  async function loaded(file: string, firstLoad: AdRecord[]) {
    const writer = new SqliteWriter(file);
    await writer.write(firstLoad);
    await writer.finish();
    return { file, writer, store: new SqliteStore({ file, workers: 0 }) };
  }

  /** Applies every batch; the store's position before the first and after each. */
  async function applyAll(writer: SqliteWriter, store: SqliteStore, batches: AdRecord[][]): Promise<ChangePosition[]> {
    const positions = [await positionOf(store)];
    for (const batch of batches) {
      await writer.apply(batch);
      positions.push(await positionOf(store));
    }
    return positions;
  }

  it('holds for every batch boundary, unfiltered and filtered, through pages of the feed', async () => {
    const { firstLoad, batches } = liveSightings(1_200, 0.4, 60);
    const { writer, store } = await loaded(join(dir, 'ads.sqlite'), firstLoad);
    try {
      const positions = await applyAll(writer, store, batches);
      const now = snapshotAfter(firstLoad, batches, batches.length);
      const filters: { filter: AdFilter; keep: (ad: AdRecord) => boolean }[] = [
        { filter: {}, keep: () => true },
        { filter: { country: 'US' }, keep: (ad: AdRecord) => ad.countries.includes('US') },
        { filter: { platforms: ['tiktok' as const] }, keep: (ad: AdRecord) => ad.platform_name === 'tiktok' },
      ];
      // The most frequent advertiser and affiliate: the feed visits their own rows of the log (change-log.ts RowChains).
      const commonest = (values: (string | null)[]) => {
        const counts = new Map<string, number>();
        for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
        return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
      };
      const advertiserId = commonest([...now.ads.values()].map((ad) => ad.advertiser_id));
      const webmasterId = commonest([...now.ads.values()].map((ad) => ad.webmaster_id));
      filters.push({ filter: { advertiserId }, keep: (ad: AdRecord) => ad.advertiser_id === advertiserId });
      filters.push({ filter: { webmasterId }, keep: (ad: AdRecord) => ad.webmaster_id === webmasterId });
      const kinds = new Set<AdChange>();
      // Every third boundary (and the first and last) keeps the run short; each is checked with every filter.
      for (let k = 0; k <= batches.length; k += k === batches.length ? 1 : Math.min(3, batches.length - k)) {
        const then = snapshotAfter(firstLoad, batches, k);
        for (const { filter, keep } of filters) {
          const expected = difference(then, now, keep);
          const feed = await feedSince(store, positions[k] as ChangePosition, filter, 97);
          expect(feed.length).toBe(new Set(feed.map(([id]) => id)).size);
          expect(new Map(feed)).toEqual(expected);
          for (const change of expected.values()) kinds.add(change);
        }
      }
      // The stream exercises every kind of change.
      expect([...kinds].sort()).toEqual(['changed', 'ended', 'new', 'resumed']);
    } finally {
      await store.close();
      await writer.close();
    }
  });

  it('holds while a reader’s window follows the watermarks asked: reaching back to older ones, letting go of the rest', async () => {
    const { firstLoad, batches } = liveSightings(600, 0.4, 40);
    const { file, writer, store } = await loaded(join(dir, 'window.sqlite'), firstLoad);
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const positions = await applyAll(writer, store, batches);
      const now = snapshotAfter(firstLoad, batches, batches.length);
      // heldMs 0: every call lets go of the rows before the watermarks of this call and the one before it.
      const onColumns = new ChangeFeedReader(db, new LiveColumns(db), 0);
      const inSql = new ChangeFeedReader(db, null, 0);
      const asStore = (reader: ChangeFeedReader) => ({ adChanges: async (query: AdChangesQuery) => reader.changes(query) });
      const last = batches.length;
      // Newest first, then the oldest (the window reaches back), then new again (it lets the old rows go), and so on.
      const order = [last - 1, last - 2, 0, last - 1, last - 1, Math.floor(last / 2), 1, last - 3, last - 3, 2];
      const held: number[] = [];
      for (const k of order) {
        const then = snapshotAfter(firstLoad, batches, k);
        const since = positions[k] as ChangePosition;
        for (const filter of [{}, { country: 'US' }] as AdFilter[]) {
          const keep = (ad: AdRecord) => filter.country === undefined || ad.countries.includes(filter.country);
          const expected = difference(then, now, keep);
          expect(new Map(await feedSince(asStore(onColumns), since, filter, 7))).toEqual(expected);
          held.push(feedReadStats.heldRows);
          expect(new Map(await feedSince(asStore(inSql), since, filter, 7))).toEqual(expected);
          // The total as a plain search's: exact up to countUpTo, else countUpTo and estimated; the page the earliest.
          const countUpTo = 10;
          for (const reader of [onColumns, inSql]) {
            const result = reader.changes({ filter, since, limit: 3, countUpTo });
            if (result.outcome !== 'page') throw new Error(`the feed answered ${result.outcome}`);
            expect(result.count).toEqual(expected.size > countUpTo ? { total: countUpTo, estimated: true } : { total: expected.size, estimated: false });
            expect(result.page.rows.map((r) => r.id)).toEqual((await feedSince(asStore(reader), since, filter, 50)).slice(0, 3).map(([id]) => id));
          }
        }
      }
      // What the reader held followed the watermarks: all of the log for the oldest, a few batches' rows for the newest.
      const total = (db.prepare('SELECT count(*) AS n FROM ad_feed').get() as { n: number }).n;
      expect(held[4]).toBe(total);
      // order[8], asked twice in a row: the window holds its three batches only.
      expect(held[16]).toBeLessThan(total / 5);
      expect(held[16]).toBeGreaterThan(0);
    } finally {
      db.close();
      await store.close();
      await writer.close();
    }
  });

  it('holds when feed calls come between tail batches and merges, the per-position arrays brought forward over tail batches', async () => {
    const { firstLoad, batches } = tailAndMerges(1_500, 24);
    const { file, writer, store } = await loaded(join(dir, 'tail.sqlite'), firstLoad);
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const columns = new LiveColumns(db);
      const reader = new ChangeFeedReader(db, columns);
      const asStore = { adChanges: async (query: AdChangesQuery) => reader.changes(query) };
      const positions: ChangePosition[] = [await positionOf(store)];
      const counted = { builds: feedReadStats.builds, carried: feedReadStats.carried };
      let merges = 0;
      for (const [i, batch] of batches.entries()) {
        await writer.apply(batch);
        positions.push(await positionOf(store));
        const k = i + 1;
        const tails = columns.tailForwards;
        const now = snapshotAfter(firstLoad, batches, k);
        // The oldest watermark first (the window holds every batch from then on: no new window, no rebuild for it).
        for (const j of [0, Math.floor(k / 2), k - 1]) {
          const then = snapshotAfter(firstLoad, batches, j);
          for (const filter of [{}, { country: 'US' }] as AdFilter[]) {
            const keep = (ad: AdRecord) => filter.country === undefined || ad.countries.includes(filter.country);
            expect(new Map(await feedSince(asStore, positions[j] as ChangePosition, filter, 13))).toEqual(difference(then, now, keep));
          }
        }
        // The first call after a batch brought the columns forward: by the tail path or by a merge.
        if (k > 1 && columns.tailForwards === tails) merges++;
      }
      // The stream takes both paths, and only a merge (or the first call) built the arrays whole.
      expect(merges).toBeGreaterThan(3);
      expect(batches.length - 1 - merges).toBeGreaterThan(8);
      expect(feedReadStats.builds - counted.builds).toBe(1 + merges);
      expect(feedReadStats.carried - counted.carried).toBe(batches.length - 1 - merges);
    } finally {
      db.close();
      await store.close();
      await writer.close();
    }
  });
});

/**
 * Batches the live writer appends as a tail (ADR 0013: new ads of the newest day with ids after every stored one, on
 * hosts the store knows; re-sightings that move dates, status and impressions), every third one with a re-sighting
 * that adds a country (its lists change: the columns are merged, positions move). The first 60 % in id order load first.
 */
function tailAndMerges(count: number, batchCount: number): { firstLoad: AdRecord[]; batches: AdRecord[][] } {
  const lines = [...generateDemoAds(count, 4242)].sort((a, b) => (a.id < b.id ? -1 : 1));
  const firstLoad = lines.slice(0, Math.floor(count * 0.6));
  const day = firstLoad.reduce((max, line) => (line.last_seen_date > max ? line.last_seen_date : max), '');
  const latest = new Map(firstLoad.map((line) => [line.id, line]));
  const known = firstLoad.map((line) => line.id);
  const fresh = lines.slice(firstLoad.length);
  const perBatch = Math.floor(fresh.length / batchCount);
  const batches: AdRecord[][] = [];
  for (let b = 0; b < batchCount; b++) {
    const batch: AdLine[] = [];
    fresh.slice(b * perBatch, (b + 1) * perBatch).forEach((line, i) => {
      const host = firstLoad[(i * 7919 + b) % firstLoad.length] as AdLine;
      const added = { ...line, first_seen_date: day, last_seen_date: day, activity_days_amount: 1, landing_url: host.landing_url };
      batch.push(added);
      latest.set(added.id, added);
      const id = known[(b * 104_729 + i * 31) % known.length] as string;
      const was = latest.get(id) as AdLine;
      const span = dayNumber(day) - dayNumber(was.first_seen_date) + 1;
      const seen = { ...was, last_seen_date: day, status_today: i % 3 === 0 ? ('inactive' as const) : ('active' as const), activity_days_amount: Math.min(span, was.activity_days_amount + 1), impressions: was.impressions + 1 };
      batch.push(seen);
      latest.set(id, seen);
    });
    if (b % 3 === 2) {
      const id = known[(b * 7) % known.length] as string;
      const was = latest.get(id) as AdLine;
      const extra = ['US', 'DE', 'BR', 'IN', 'FR', 'JP'].find((c) => !was.countries.includes(c)) ?? 'ZZ';
      const seen = { ...was, last_seen_date: day, countries: [...was.countries, extra] };
      batch.push(seen);
      latest.set(id, seen);
    }
    batches.push(batch.map(toAdRecord));
  }
  return { firstLoad: firstLoad.map(toAdRecord), batches };
}
