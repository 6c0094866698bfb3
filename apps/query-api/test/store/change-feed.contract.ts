/**
 * The change feed of the AdStore port (adChanges, and the position searchAds reports), pinned on the contract fixture
 * fed by live batches, and the equivalence property (describeChangeFeedEquivalence). An engine runs them with
 * `describeChangeFeedContract(engine, open)`: SQLite in sqlite/change-feed.spec.ts, Elasticsearch in
 * elasticsearch/change-feed.spec.ts (through the stand-in cluster, a double for a real one, or a cluster at ES_URL).
 */
import type { AdChange } from '@adintel/contracts';
import { toAdRecord, type AdLine } from '../../src/ingest/ad-line';
import type { AdFilter, AdRecord, AdStore, ChangePosition, SortKey } from '../../src/store/ad-store.port';
import { classify, visibleState } from '../../src/store/visible-state';
import { liveSightings } from './live-sightings';
import { FIXTURE_LINES, FIXTURE_RECORDS } from './store-fixture';

export interface LiveStoreUnderTest {
  store: AdStore;
  /** Applies one live batch and resolves when the store's readers see it. */
  apply(batch: readonly AdRecord[]): Promise<void>;
  close(): Promise<void>;
}

/** Loads the records into a fresh store of the engine that takes live batches. */
export type OpenLiveStore = (records: AdRecord[]) => Promise<LiveStoreUnderTest>;

const fixtureLine = (id: string): AdLine => {
  const found = FIXTURE_LINES.find((l) => l.id === id);
  if (!found) throw new Error(`no fixture line ${id}`);
  return found;
};

/** Every page of the feed since `since`, as [id, change] in the order given. */
export async function feedSince(store: Pick<AdStore, 'adChanges'>, since: ChangePosition, filter: AdFilter = {}, limit = 2): Promise<[string, AdChange][]> {
  const out: [string, AdChange][] = [];
  let after: SortKey | undefined;
  for (;;) {
    const result = await store.adChanges?.({ filter, since, limit, countUpTo: 100, ...(after ? { after } : {}) });
    if (result?.outcome !== 'page') throw new Error(`the feed answered ${result?.outcome ?? 'nothing'}`);
    out.push(...result.page.rows.map((r): [string, AdChange] => [r.id, r.change]));
    if (!result.page.hasMore) return out;
    after = result.page.lastKey ?? undefined;
  }
}

export async function positionOf(store: AdStore): Promise<ChangePosition> {
  const { position } = await store.searchAds({ filter: {}, sort: 'date', order: 'desc', limit: 1 });
  if (!position) throw new Error('searchAds reported no position');
  return position;
}

export function describeChangeFeedContract(engine: string, open: OpenLiveStore): void {
  describe(`AdStore change feed: ${engine}`, () => {
    let subject: LiveStoreUnderTest;
    let store: AdStore;

    beforeEach(async () => {
      subject = await open(FIXTURE_RECORDS);
      store = subject.store;
    });
    afterEach(async () => {
      await subject?.close();
    });

    it('reports a position with every search; nothing changed since the current one', async () => {
      const loaded = await positionOf(store);
      expect(await feedSince(store, loaded)).toEqual([]);
      await subject.apply([toAdRecord({ ...fixtureLine('ad_02'), id: 'ad_new_1' })]);
      const next = await positionOf(store);
      expect(next.store).toBe(loaded.store);
      expect(next.seq).toBeGreaterThan(loaded.seq);
      expect(await feedSince(store, next)).toEqual([]);
    });

    it('new, changed, ended and resumed; counters, dates and impressions moving alone are no change', async () => {
      const since = await positionOf(store);
      const ad01 = fixtureLine('ad_01'); // active on the data's day, 2026-01-31
      const ad02 = fixtureLine('ad_02'); // inactive since 2026-01-06
      await subject.apply([
        toAdRecord({ ...fixtureLine('ad_02'), id: 'ad_new_1' }),
        toAdRecord({ ...ad01, countries: [...ad01.countries, 'DE'] }),
        toAdRecord({ ...ad02, status_today: 'active', last_seen_date: '2026-01-31', activity_days_amount: 3 }),
      ]);
      const middle = await positionOf(store);
      const ad03 = FIXTURE_LINES.find((l) => l.status_today === 'active' && l.last_seen_date === '2026-01-31' && l.id !== 'ad_01') as AdLine;
      await subject.apply([
        toAdRecord({ ...ad03, status_today: 'inactive' }),
        // Seen again the same day with more impressions and activity: nothing an agent sees changed.
        toAdRecord({ ...ad01, countries: [...ad01.countries, 'DE'], impressions: ad01.impressions + 7, activity_days_amount: 21, popularity: 9.9 }),
      ]);
      const all = await feedSince(store, since);
      expect(new Map(all)).toEqual(
        new Map<string, AdChange>([
          ['ad_new_1', 'new'],
          ['ad_01', 'changed'],
          ['ad_02', 'resumed'],
          [ad03.id, 'ended'],
        ]),
      );
      expect(all).toHaveLength(4);
      // Change order: the ads of the first batch (by id), then the second's.
      expect(all.map(([id]) => id)).toEqual(['ad_01', 'ad_02', 'ad_new_1', ad03.id]);
      // From the middle position only the second batch's visible change remains.
      expect(await feedSince(store, middle)).toEqual([[ad03.id, 'ended']]);
    });

    it('keeps to the filters, on the state the ads have now', async () => {
      const since = await positionOf(store);
      const ad01 = fixtureLine('ad_01');
      await subject.apply([
        toAdRecord({ ...fixtureLine('ad_02'), id: 'ad_new_us', countries: ['US'] }),
        toAdRecord({ ...fixtureLine('ad_02'), id: 'ad_new_br', countries: ['BR'] }),
        toAdRecord({ ...ad01, title: 'Summer sale on sandals' }),
      ]);
      expect(await feedSince(store, since, { country: 'BR' })).toEqual([['ad_new_br', 'new']]);
      expect((await feedSince(store, since, { country: 'US' })).map(([id]) => id)).toEqual(['ad_01', 'ad_new_us']);
      expect(await feedSince(store, since, { words: ['sandals'] })).toEqual([['ad_01', 'changed']]);
    });

    it('reports as ended the active ads whose last sighting the data’s day moved past', async () => {
      const since = await positionOf(store);
      const activeOnTheDay = FIXTURE_LINES.filter((l) => l.status_today === 'active' && l.last_seen_date === '2026-01-31').map((l) => l.id);
      expect(activeOnTheDay.length).toBeGreaterThan(1);
      const [kept, ...passed] = activeOnTheDay as [string, ...string[]];
      // The next day: one ad is seen again, active; the others were not seen that day.
      await subject.apply([toAdRecord({ ...fixtureLine(kept), last_seen_date: '2026-02-01' })]);
      const feed = new Map(await feedSince(store, since));
      expect(feed.get(kept)).toBeUndefined();
      for (const id of passed) expect(feed.get(id)).toBe('ended');
      expect(feed.size).toBe(passed.length);
    });

    it('counts the feed, and pages it in change order without overlap or skip', async () => {
      const since = await positionOf(store);
      const fresh = ['n1', 'n2', 'n3', 'n4', 'n5'];
      for (const id of fresh) await subject.apply([toAdRecord({ ...fixtureLine('ad_02'), id: `ad_${id}` })]);
      const result = await store.adChanges?.({ filter: {}, since, limit: 2, countUpTo: 3 });
      expect(result?.outcome === 'page' && result.count).toEqual({ total: 3, estimated: true });
      expect(result?.outcome === 'page' && result.page.hasMore).toBe(true);
      expect((await feedSince(store, since, {}, 2)).map(([id]) => id)).toEqual(fresh.map((id) => `ad_${id}`));
    });

    it('answers foreign for a position of another store or ahead of this one', async () => {
      const here = await positionOf(store);
      expect((await store.adChanges?.({ filter: {}, since: { store: 'elsewhere', seq: 0 }, limit: 5, countUpTo: 5 }))?.outcome).toBe('foreign');
      expect((await store.adChanges?.({ filter: {}, since: { ...here, seq: here.seq + 1 }, limit: 5, countUpTo: 5 }))?.outcome).toBe('foreign');
    });
  });
}

/** What the store holds after some batches: the last sighting of each id, and the data's day (newest last sighting). */
export interface Snapshot {
  ads: Map<string, AdRecord>;
  day: string;
}

export function snapshotAfter(firstLoad: AdRecord[], batches: AdRecord[][], count: number): Snapshot {
  const ads = new Map(firstLoad.map((ad) => [ad.id, ad]));
  for (const batch of batches.slice(0, count)) for (const ad of batch) ads.set(ad.id, ad);
  const day = [...ads.values()].reduce((max, ad) => (ad.last_seen_date > max ? ad.last_seen_date : max), '');
  return { ads, day };
}

/** The oracle: the difference of two snapshots as an agent sees it, for the ads `keep` selects (on their state now). */
export function difference(then: Snapshot, now: Snapshot, keep: (ad: AdRecord) => boolean): Map<string, AdChange> {
  const out = new Map<string, AdChange>();
  for (const [id, ad] of now.ads) {
    if (!keep(ad)) continue;
    const was = then.ads.get(id);
    const change = classify(was ? visibleState(was, then.day) : null, visibleState(ad, now.day));
    if (change) out.set(id, change);
  }
  return out;
}

/**
 * The equivalence property of issue 36 for any engine: the feed replayed from any watermark equals the difference of
 * two snapshots (every third batch boundary, unfiltered and filtered, through pages of the feed).
 */
export function describeChangeFeedEquivalence(engine: string, open: OpenLiveStore, size = { ads: 1_200, batches: 60 }): void {
  describe(`the change feed replayed from any watermark equals the difference of two snapshots: ${engine}`, () => {
    it('holds for every batch boundary, unfiltered and filtered, through pages of the feed', async () => {
      const { firstLoad, batches } = liveSightings(size.ads, 0.4, size.batches);
      const subject = await open(firstLoad);
      try {
        const positions: ChangePosition[] = [await positionOf(subject.store)];
        for (const batch of batches) {
          await subject.apply(batch);
          positions.push(await positionOf(subject.store));
        }
        const now = snapshotAfter(firstLoad, batches, batches.length);
        const filters = [
          { filter: {}, keep: () => true },
          { filter: { country: 'US' }, keep: (ad: AdRecord) => ad.countries.includes('US') },
          { filter: { platforms: ['tiktok' as const] }, keep: (ad: AdRecord) => ad.platform_name === 'tiktok' },
        ];
        const kinds = new Set<AdChange>();
        for (let k = 0; k <= batches.length; k += k === batches.length ? 1 : Math.min(3, batches.length - k)) {
          const then = snapshotAfter(firstLoad, batches, k);
          for (const { filter, keep } of filters) {
            const expected = difference(then, now, keep);
            const feed = await feedSince(subject.store, positions[k] as ChangePosition, filter, 97);
            expect(feed.length).toBe(new Set(feed.map(([id]) => id)).size);
            expect(new Map(feed)).toEqual(expected);
            for (const change of expected.values()) kinds.add(change);
          }
        }
        expect([...kinds].sort()).toEqual(['changed', 'ended', 'new', 'resumed']);
      } finally {
        await subject.close();
      }
    }, 240_000);
  });
}
