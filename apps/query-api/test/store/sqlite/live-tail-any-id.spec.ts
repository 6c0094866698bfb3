import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AD_SORTS, SORT_ORDERS } from '@adintel/contracts';
import type { AdFilter, AdRecord, AdStore } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { firstDifference } from '../live-sightings';
import { EVERY_WORD, offlineLoad } from './offline-load';
import { type AdLine, toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import { addDays } from '../../../src/store/text';
import { dayNumber } from '../../../src/store/text';

/**
 * ADR 0018: live batches of new ads of the newest day take the columns' tail path whatever their ids (here among the
 * stored ones) and hosts (here new hosts, new subdomains of known domains, new domains), and every data tool answers
 * as one offline load of the same ads does.
 */

/**
 * The first load: 60 % of the demo ads, every id of the rest falling among theirs. Then batches of new ads first seen
 * on the newest day (the last third on the day after it), each followed by two re-sightings that move dates, status,
 * activity and impressions only. New ads land on a known host, their own (often new), a new subdomain of a known
 * domain, or one of a few new domains.
 */
function anyIdSightings(count: number, batchSize = 150) {
  const lines = [...generateDemoAds(count, 4243)].sort((a, b) => (a.id < b.id ? -1 : 1));
  const firstLoad = lines.filter((_, i) => i % 5 !== 1 && i % 5 !== 3);
  const fresh = lines.filter((_, i) => i % 5 === 1 || i % 5 === 3);
  const day = firstLoad.reduce((max, line) => (line.last_seen_date > max ? line.last_seen_date : max), '');
  const latest = new Map(firstLoad.map((line) => [line.id, line]));
  const known = firstLoad.map((line) => line.id);
  const stream: AdLine[] = [];
  const newDomains = new Set<string>();
  fresh.forEach((line, i) => {
    const today = i < (fresh.length * 2) / 3 ? day : addDays(day, 1);
    const other = firstLoad[(i * 7919) % firstLoad.length] as AdLine;
    const otherHost = new URL(other.landing_url).host;
    const landing = [other.landing_url, line.landing_url, `https://n${i}.${otherHost}/p?i=${i}`, `https://shop${i % 4}.fresh${i % 3}.example.net/x`][i % 4] as string;
    if (i % 4 === 3) newDomains.add(`fresh${i % 3}.example.net`);
    const ad = { ...line, first_seen_date: today, last_seen_date: today, activity_days_amount: 1, landing_url: landing };
    stream.push(ad);
    latest.set(ad.id, ad);
    for (let k = 1; k <= 2; k++) {
      const id = known[(i * 104_729 + k * 31) % known.length] as string;
      const was = latest.get(id) as AdLine;
      const last = was.last_seen_date > today ? was.last_seen_date : today;
      const span = dayNumber(last) - dayNumber(was.first_seen_date) + 1;
      const seen = {
        ...was,
        last_seen_date: last,
        status_today: (i + k) % 5 === 0 ? ('inactive' as const) : ('active' as const),
        activity_days_amount: Math.min(span, was.activity_days_amount + 1),
        impressions: was.impressions + 1 + k,
      };
      stream.push(seen);
      latest.set(id, seen);
    }
  });
  const batches: AdRecord[][] = [];
  for (let i = 0; i < stream.length; i += batchSize) batches.push(stream.slice(i, i + batchSize).map(toAdRecord));
  return { firstLoad: firstLoad.map(toAdRecord), batches, finalRecords: [...latest.values()].map(toAdRecord), newDomains: [...newDomains] };
}

/** Reads beyond firstDifference's where the tail's order matters: hosts' domains, and date-sorted pages to the end. */
async function tailDifference(a: AdStore, b: AdStore, records: AdRecord[], domains: string[]): Promise<string | null> {
  const today = records.reduce((m, ad) => (ad.last_seen_date > m ? ad.last_seen_date : m), '');
  const hosts = [...new Set(records.map((ad) => ad.landing_domain))].filter((_, i) => i % 7 === 0).slice(0, 40);
  const filters: AdFilter[] = [
    ...domains.map((landingDomain) => ({ landingDomain })),
    ...hosts.map((landingDomain) => ({ landingDomain })),
    { dateFrom: addDays(today, -1) },
    { dateFrom: addDays(today, -1), country: 'US' },
    { dateFrom: addDays(today, -1), status: 'active' as const },
  ];
  for (const filter of filters) {
    for (const sort of AD_SORTS) {
      for (const order of SORT_ORDERS) {
        // Every page, through each page's key: a walk that stops early reads to the end of its last match's day.
        let after: Awaited<ReturnType<AdStore['searchAds']>>['lastKey'] | undefined;
        for (let page = 0; page < 30; page++) {
          // The page, not its change-feed position (each store names its own).
          const [x, y] = await Promise.all(
            [a, b].map(async (s) => {
              const { rows, hasMore, lastKey } = await s.searchAds({ filter, sort, order, limit: 13, ...(after ? { after } : {}) });
              return { rows, hasMore, lastKey };
            }),
          );
          if (JSON.stringify(x) !== JSON.stringify(y)) return `search ${JSON.stringify(filter)} ${sort} ${order} page ${page}`;
          if (!x?.lastKey || !x.hasMore) break;
          after = x.lastKey;
        }
      }
    }
    const [x, y] = await Promise.all([a, b].map((s) => s.countAds(filter, 100_000)));
    if (JSON.stringify(x) !== JSON.stringify(y)) return `count ${JSON.stringify(filter)}`;
  }
  return null;
}

describe('live batches of new ads among the stored ids and on new hosts (ADR 0018)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-tail-any-id-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('take the tail, batch after batch, and every data tool answers as one offline load', async () => {
    const { firstLoad, batches, finalRecords, newDomains } = anyIdSightings(3_000);
    const expected = new SqliteStore({ file: await offlineLoad(join(dir, 'offline.sqlite'), finalRecords), workers: 0 });

    const file = join(dir, 'live.sqlite');
    const writer = new SqliteWriter(file, EVERY_WORD, 1_000);
    await writer.write(firstLoad);
    await writer.finish();
    const following = new SqliteStore({ file, workers: 0 });
    const deriving = new SqliteStore({ file, workers: 0, tuning: { follow: false } });
    let halfway: SqliteStore | null = null;
    try {
      for (const [b, batch] of batches.entries()) {
        await writer.apply(batch);
        if (b === Math.floor(batches.length / 2)) halfway = new SqliteStore({ file, workers: 0 });
        for (const store of [following, deriving, halfway]) {
          // Reads that build the indexes (hosts among them), so later batches splice the tail into them.
          await store?.searchAds({ filter: { country: 'US' }, sort: 'date', order: 'desc', limit: 5 });
          await store?.searchAds({ filter: { landingDomain: 'example.net' }, sort: 'date', order: 'asc', limit: 5 });
          await store?.countAds({ country: 'US', categories: ['gaming'] }, 1);
          await store?.countAds({ dateFrom: '2026-01-01' }, 1);
          await store?.trends({
            dimension: 'advertisers/cards',
            filter: {},
            window: { from: '2026-01-01', to: '2026-12-31' },
            previous: { from: '2025-01-01', to: '2025-12-31' },
            limit: 5,
          });
        }
      }
      // Every batch brings new ids among the stored ones and new hosts: none takes the merge.
      expect(writer.tailForwards).toBe(batches.length);
      const late = new SqliteStore({ file, workers: 0 });
      try {
        for (const store of [following, deriving, halfway as SqliteStore, late]) {
          expect(await firstDifference(expected, store, finalRecords)).toBeNull();
          expect(await tailDifference(expected, store, finalRecords, newDomains)).toBeNull();
        }
      } finally {
        await late.close();
      }

      // Then a batch that takes the merge (re-sightings in new countries): the tails' positions are put in
      // (first_seen, id) order again, and the answers stay those of an offline load.
      const moved = finalRecords.filter((_, i) => i % 97 === 0).map((ad) => ({ ...ad, countries: [...ad.countries, 'ZZ'] }));
      await writer.apply(moved);
      expect(writer.tailForwards).toBe(batches.length);
      const ids = new Set(moved.map((ad) => ad.id));
      const merged = [...finalRecords.filter((ad) => !ids.has(ad.id)), ...moved];
      const expectedMerged = new SqliteStore({ file: await offlineLoad(join(dir, 'merged.sqlite'), merged), workers: 0 });
      try {
        for (const store of [following, deriving]) {
          expect(await firstDifference(expectedMerged, store, merged)).toBeNull();
          expect(await tailDifference(expectedMerged, store, merged, newDomains)).toBeNull();
        }
      } finally {
        await expectedMerged.close();
      }
      await writer.close();
    } finally {
      await Promise.all([expected.close(), following.close(), deriving.close(), halfway?.close()]);
    }
  }, 300_000);
});
