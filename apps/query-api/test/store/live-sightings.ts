/**
 * Live sightings for the equivalence tests: a demo data set, split into a first load and a stream of batches that
 * add the rest and see known ads again (later last_seen_date, another status, more activity days and countries),
 * some more than once. `finalRecords` is what the store should hold after all of them: the last sighting of each id.
 */
import { AD_SORTS, BREAKDOWN_FIELDS, DESTINATION_TYPES, SORT_ORDERS, TREND_DIMENSIONS } from '@adintel/contracts';
import type { AdLine } from '../../src/ingest/ad-line';
import { toAdRecord } from '../../src/ingest/ad-line';
import { generateDemoAds } from '../../src/ingest/demo-generator';
import type { AdFilter, AdRecord, AdStore, SortKey } from '../../src/store/ad-store.port';
import { addDays, dayNumber } from '../../src/store/text';

export interface LiveSightings {
  firstLoad: AdRecord[];
  batches: AdRecord[][];
  finalRecords: AdRecord[];
}

/** A deterministic stream: `count` demo ads, `firstShare` of them loaded first, the rest arriving among re-sightings. */
export function liveSightings(count: number, firstShare = 0.4, batchSize = 150): LiveSightings {
  const lines = [...generateDemoAds(count, 4242)];
  const firstCount = Math.floor(count * firstShare);
  const latest = new Map<string, AdLine>();
  const firstLoad = lines.slice(0, firstCount);
  for (const line of firstLoad) latest.set(line.id, line);
  const stream: AdLine[] = [];
  let r = 0;
  for (let i = firstCount; i < lines.length; i++) {
    const fresh = lines[i] as AdLine;
    stream.push(fresh);
    latest.set(fresh.id, fresh);
    // About two re-sightings per new ad, of ads picked across everything seen so far.
    for (let k = 0; k < 2; k++) {
      r = (r * 7919 + 104_729) % 1_000_003;
      const known = [...latest.keys()];
      const id = known[r % known.length] as string;
      const seen = resight(latest.get(id) as AdLine, r);
      stream.push(seen);
      latest.set(id, seen);
    }
  }
  // Re-deliveries (a consumer that crashed before acknowledging): the same lines again change nothing.
  stream.push(...stream.slice(-20));
  const batches: AdRecord[][] = [];
  for (let i = 0; i < stream.length; i += batchSize) batches.push(stream.slice(i, i + batchSize).map(toAdRecord));
  const finalRecords = [...latest.values()].map(toAdRecord);
  return { firstLoad: firstLoad.map(toAdRecord), batches, finalRecords };
}

/** The ad seen again `r`-dependent days later: status may flip, more activity days, sometimes one more country or a new landing URL. */
function resight(line: AdLine, r: number): AdLine {
  const last = addDays(line.last_seen_date, 1 + (r % 9));
  const span = dayNumber(last) - dayNumber(line.first_seen_date) + 1;
  const extraCountry = ['DE', 'BR', 'IN', 'US', 'FR'][r % 5] as string;
  return {
    ...line,
    last_seen_date: last,
    status_today: r % 3 === 0 ? 'inactive' : 'active',
    activity_days_amount: Math.min(span, line.activity_days_amount + 1 + (r % 4)),
    countries: r % 4 === 0 && !line.countries.includes(extraCountry) ? [...line.countries, extraCountry] : line.countries,
    impressions: line.impressions + (r % 1000),
    popularity: line.popularity + (r % 10) / 10,
    // Now and then the ad starts sending people elsewhere (a new destination type: the row is replaced, not updated).
    ...(r % 13 === 0 ? { landing_url: `https://t.me/${line.advertiser.id}` } : {}),
  };
}

/**
 * Every data read of the port on both stores, answer for answer: searches with every filter and sort (two pages
 * each, through the second page's key), counts, breakdowns, the six trend dimensions, every entity record and list,
 * advertiser activity and the catalog. Returns the first difference found (null: identical).
 */
export async function firstDifference(a: AdStore, b: AdStore, records: AdRecord[]): Promise<string | null> {
  const checks: [string, (s: AdStore) => Promise<unknown>][] = [];
  const check = (name: string, read: (s: AdStore) => Promise<unknown>) => checks.push([name, read]);
  const sample = <T>(items: T[], n: number) => items.filter((_, i) => i % Math.max(1, Math.floor(items.length / n)) === 0).slice(0, n);
  const distinct = (pick: (ad: AdRecord) => string | null) => [...new Set(records.map(pick).filter((v): v is string => v !== null))].sort();
  const advertisers = distinct((ad) => ad.advertiser_id);
  const webmasters = distinct((ad) => ad.webmaster_id);
  const creatives = distinct((ad) => ad.creative_id);
  const domains = distinct((ad) => ad.registrable_domain);
  const apps = distinct((ad) => ad.app_id);
  const today = records.reduce((m, ad) => (ad.last_seen_date > m ? ad.last_seen_date : m), '');
  const someAd = records[Math.floor(records.length / 2)] as AdRecord;
  const filters: AdFilter[] = [
    {},
    { country: 'US' },
    { country: 'DE', status: 'active' },
    { platforms: ['tiktok'] },
    { categories: [someAd.categories[0] ?? 'finance_and_banking'] },
    { status: 'inactive' },
    { advertiserId: someAd.advertiser_id },
    { webmasterId: webmasters[0] as string },
    { landingDomain: someAd.registrable_domain },
    { creativeId: someAd.creative_id },
    { words: [someAd.title.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)[0] ?? 'a'] },
    { dateFrom: addDays(today, -20), dateTo: addDays(today, -5) },
    { country: 'BR', categories: ['gambling_and_betting'], platforms: ['facebook'] },
    ...DESTINATION_TYPES.map((destinationType) => ({ destinationType })),
    { destinationType: 'online_shop', country: 'US', status: 'active' },
    { destinationType: 'app_store', platforms: ['tiktok'], dateFrom: addDays(today, -30) },
  ];
  for (const [i, filter] of filters.entries()) {
    for (const sort of AD_SORTS) {
      for (const order of SORT_ORDERS) {
        check(`search #${i} ${sort} ${order}`, async (s) => {
          const first = await s.searchAds({ filter, sort, order, limit: 7 });
          const after: SortKey | undefined = first.lastKey ?? undefined;
          const second = after ? await s.searchAds({ filter, sort, order, limit: 7, after }) : null;
          return [first, second];
        });
      }
    }
    check(`count #${i}`, (s) => s.countAds(filter, 10_000));
    check(`count bounded #${i}`, (s) => s.countAds(filter, 25));
    for (const field of BREAKDOWN_FIELDS) check(`breakdown #${i} ${field}`, (s) => s.breakdown(filter, field, 8));
  }
  const window = { from: addDays(today, -29), to: today };
  const previous = { from: addDays(today, -59), to: addDays(today, -30) };
  for (const dimension of TREND_DIMENSIONS) {
    for (const filter of [{}, { country: 'US' }, { platform: 'facebook' as const, category: 'gambling_and_betting' }]) {
      check(`trends ${dimension} ${JSON.stringify(filter)}`, (s) => s.trends({ dimension, filter, window, previous, limit: 10 }));
    }
  }
  for (const id of advertisers) {
    check(`advertiser ${id}`, (s) => s.getAdvertiser(id));
  }
  for (const id of sample(advertisers, 20)) check(`activity ${id}`, (s) => s.advertiserActivity(id, window));
  for (const id of webmasters) {
    check(`webmaster ${id}`, (s) => s.getWebmaster(id));
    check(`webmaster advertisers ${id}`, (s) => s.webmasterAdvertisers(id, { limit: 50 }));
  }
  for (const id of sample(creatives, 200)) check(`creative ${id}`, (s) => s.getCreative(id));
  for (const id of domains) check(`domain ${id}`, (s) => s.getDomain(id));
  for (const id of apps) check(`app ${id}`, (s) => s.getApp(id));
  for (const id of sample(records.map((ad) => ad.id), 100)) check(`ad ${id}`, (s) => s.getAd(id));
  for (const q of [undefined, 'a', 'bet', 'shop']) {
    check(`search advertisers ${q}`, (s) => s.searchAdvertisers({ q, limit: 100 }));
    check(`search webmasters ${q}`, (s) => s.searchWebmasters({ q, limit: 100 }));
    check(`search creatives ${q}`, (s) => s.searchCreatives({ q, limit: 100 }));
    check(`search domains ${q}`, (s) => s.searchDomains({ q, limit: 100 }));
    check(`search apps ${q}`, (s) => s.searchApps({ q, limit: 100 }));
  }
  check('catalog', (s) => s.catalog());
  // A page's change position names its own store (the change feed's watermark), so two stores never share it.
  const withoutPosition = (key: string, value: unknown) => (key === 'position' ? undefined : value);
  for (const [name, read] of checks) {
    const [x, y] = [JSON.stringify(await read(a), withoutPosition), JSON.stringify(await read(b), withoutPosition)];
    if (x !== y) return `${name}:\n  one:   ${x.slice(0, 600)}\n  other: ${y.slice(0, 600)}`;
  }
  return null;
}
