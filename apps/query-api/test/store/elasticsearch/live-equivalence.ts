/**
 * Equivalence of the live path with the offline load, engine-agnostic: the same sightings applied live in many
 * batches (new ads, re-sightings, an ad whose first_seen_date moves month, ads that move between advertisers,
 * creatives and webmasters, duplicates inside a batch, re-deliveries) must give the same answer to every data
 * question as the final versions loaded offline from scratch. Written for the Elasticsearch engine (run by
 * elasticsearch.contract.spec.ts when ES_URL is set); it takes any pair of AdStores, so other engines can use it.
 */
import { AD_SORTS, BREAKDOWN_FIELDS, DESTINATION_TYPES, PLATFORMS, AD_STATUSES, SORT_ORDERS, TREND_DIMENSIONS } from '@adintel/contracts';
import { type AdLine, toAdRecord } from '../../../src/ingest/ad-line';
import type { AdFilter, AdRecord, AdStore, SortKey } from '../../../src/store/ad-store.port';
import { addDays, dayNumber, words } from '../../../src/store/text';
import { FIXTURE_LINES } from '../store-fixture';

export interface StorePair {
  /** Built by applying `batches` with AdStoreWriter.apply. */
  live: AdStore;
  /** Built by loading `final` offline (write + finish). */
  offline: AdStore;
}

export interface LiveSightings {
  /** The batches to apply, in order. */
  batches: AdRecord[][];
  /** The last version of every ad: what an offline load of the same stream holds. */
  final: AdRecord[];
  /** Every version of every ad: the entities of early versions must be gone or equal in both stores. */
  versions: AdRecord[];
}

/**
 * Three versions of each ad: its first sighting (seen one day, one country, active, a tenth of its impressions),
 * a middle re-sighting, and the final line. Some first sightings differ in what keys entities: ad_02 is first seen
 * in December (its first_seen_date then moves to January: another monthly index), ad_04 first belongs to another
 * advertiser, ad_09 to a creative and a webmaster that no final ad has (so they must disappear).
 */
export function movingSightings(lines: readonly AdLine[] = FIXTURE_LINES): LiveSightings {
  const firstOverrides: Record<string, Partial<AdLine>> = {
    ad_02: { first_seen_date: '2025-12-30' },
    ad_04: { advertiser: { id: 'adv_acme', name: 'Acme Shop Ltd', account_id: 'fb-acme' } },
    ad_09: { creative: { id: 'cr_gone', format: 'image', title: 'Gone' }, webmaster: { id: 'wm_gone', name: 'Gone Media' } },
  };
  const versions = lines.map((line) => {
    const first: AdLine = {
      ...line,
      last_seen_date: line.first_seen_date,
      status_today: 'active',
      activity_days_amount: 1,
      countries: line.countries.slice(0, 1),
      impressions: Math.floor(line.impressions / 10),
      popularity: line.popularity / 2,
      ...firstOverrides[line.id],
    };
    const span = dayNumber(line.last_seen_date) - dayNumber(line.first_seen_date);
    const middle: AdLine = {
      ...line,
      last_seen_date: addDays(line.first_seen_date, Math.floor(span / 2)),
      status_today: 'active',
      activity_days_amount: Math.max(1, Math.ceil(line.activity_days_amount / 2)),
      impressions: Math.floor(line.impressions / 2),
    };
    return [first, middle, line].map(toAdRecord);
  });
  const at = (step: number, from = 0, to = versions.length) => versions.slice(from, to).map((v) => v[step] as AdRecord);
  const half = Math.ceil(versions.length / 2);
  const batches = [
    at(0, 0, half),
    [...at(0, half), ...at(1, 0, 2)],
    // A middle version and the final one of the same ad in one batch: the last one wins.
    [...at(1, 2), ...at(2, 2, 3)],
    [...at(1, 2), ...at(2, 2, 3)], // redelivered as is
    at(2),
    at(2, 0, 3), // redelivered: unchanged
  ];
  return { batches, final: at(2), versions: versions.flat() };
}

const distinct = <T>(values: Iterable<T | null | undefined>) => [...new Set([...values].filter((v): v is T => v !== null && v !== undefined))].sort();

/** Every filter worth asking about the ads of `records`, one field at a time and a few together. */
function filtersOf(records: readonly AdRecord[]): Record<string, AdFilter> {
  const filters: Record<string, AdFilter> = { all: {} };
  const add = <V extends string>(name: string, values: readonly V[], make: (value: V) => AdFilter) => {
    for (const value of values) filters[`${name}=${value}`] = make(value);
  };
  add('country', distinct(records.flatMap((r) => r.countries)), (country) => ({ country }));
  add('platform', PLATFORMS, (platform) => ({ platforms: [platform] }));
  add('category', distinct(records.flatMap((r) => r.categories)), (category) => ({ categories: [category] }));
  add('status', AD_STATUSES, (status) => ({ status }));
  add('destination', DESTINATION_TYPES, (destinationType) => ({ destinationType }));
  add('advertiser', distinct(records.map((r) => r.advertiser_id)), (advertiserId) => ({ advertiserId }));
  add('webmaster', distinct(records.map((r) => r.webmaster_id)), (webmasterId) => ({ webmasterId }));
  add('creative', distinct(records.map((r) => r.creative_id)), (creativeId) => ({ creativeId }));
  add('app', distinct(records.map((r) => r.app_id)), (appId) => ({ appId }));
  add('domain', distinct(records.flatMap((r) => [r.landing_domain, r.registrable_domain])), (landingDomain) => ({ landingDomain }));
  add('word', distinct(records.flatMap((r) => words(r.title))).slice(0, 12), (word) => ({ words: [word] }));
  const dates = distinct(records.flatMap((r) => [r.first_seen_date, r.last_seen_date]));
  for (const [i, from] of dates.entries()) {
    const to = dates[Math.min(dates.length - 1, i + 3)] ?? from;
    filters[`active ${from}..${to}`] = { dateFrom: from, dateTo: to };
  }
  filters['several'] = { platforms: ['facebook'], status: 'active', dateFrom: dates[0] ?? '2026-01-01' };
  return filters;
}

/** Walks every page of a keyset search, `limit` rows at a time. */
async function allPages<T>(page: (after?: SortKey) => Promise<{ rows: T[]; hasMore: boolean; lastKey: SortKey | null }>): Promise<T[][]> {
  const pages: T[][] = [];
  let after: SortKey | undefined;
  for (let i = 0; i < 100; i++) {
    const result = await page(after);
    pages.push(result.rows);
    if (!result.hasMore || !result.lastKey) break;
    after = result.lastKey;
  }
  return pages;
}

/**
 * The answers of one store to every data question about `records` (every version of every ad): searches with every
 * filter and sort (paged), counts, breakdowns, the six trend dimensions, every ad and every entity record and list.
 */
export async function storeAnswers(store: AdStore, records: readonly AdRecord[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  const filters = filtersOf(records);
  for (const [name, filter] of Object.entries(filters)) {
    answers[`count ${name}`] = await store.countAds(filter, 10_000);
    answers[`count ${name} (estimated above 2)`] = await store.countAds(filter, 2);
    answers[`search ${name}`] = await store.searchAds({ filter, sort: 'date', order: 'desc', limit: 100 });
  }
  for (const sort of AD_SORTS) {
    for (const order of SORT_ORDERS) {
      answers[`search all by ${sort} ${order}, pages of 3`] = await allPages((after) =>
        store.searchAds({ filter: {}, sort, order, limit: 3, ...(after ? { after } : {}) }),
      );
      answers[`search active by ${sort} ${order}`] = await store.searchAds({ filter: { status: 'active' }, sort, order, limit: 100 });
    }
  }
  for (const field of BREAKDOWN_FIELDS) {
    for (const name of ['all', 'status=active', 'platform=tiktok', 'several']) {
      const filter = filters[name];
      if (filter) answers[`breakdown ${field} ${name}`] = await store.breakdown(filter, field, 50);
    }
  }
  const last = distinct(records.map((r) => r.last_seen_date)).at(-1) ?? '2026-01-31';
  const window = { from: addDays(last, -6), to: last };
  const previous = { from: addDays(last, -13), to: addDays(last, -7) };
  const countries = distinct(records.flatMap((r) => r.countries));
  for (const dimension of TREND_DIMENSIONS) {
    for (const filter of [{}, { platform: 'facebook' as const }, { country: countries[0] ?? 'US' }]) {
      answers[`trends ${dimension} ${JSON.stringify(filter)}`] = await store.trends({ dimension, filter, window, previous, limit: 20 });
    }
  }
  for (const id of distinct(records.map((r) => r.id))) answers[`ad ${id}`] = await store.getAd(id);
  for (const id of distinct(records.map((r) => r.advertiser_id))) {
    answers[`advertiser ${id}`] = await store.getAdvertiser(id);
    answers[`advertiser ${id} activity`] = await store.advertiserActivity(id, { from: addDays(last, -40), to: last });
  }
  for (const id of distinct(records.map((r) => r.webmaster_id))) {
    answers[`webmaster ${id}`] = await store.getWebmaster(id);
    answers[`webmaster ${id} advertisers`] = await store.webmasterAdvertisers(id, { limit: 100 });
  }
  for (const id of distinct(records.map((r) => r.creative_id))) answers[`creative ${id}`] = await store.getCreative(id);
  for (const id of distinct(records.map((r) => r.registrable_domain))) answers[`domain ${id}`] = await store.getDomain(id);
  for (const id of distinct(records.map((r) => r.app_id))) answers[`app ${id}`] = await store.getApp(id);
  const names = records.flatMap((r) => [r.advertiser_name, r.webmaster_name, r.creative_title, r.registrable_domain, r.app?.name]);
  const firstWords = distinct(names.map((name) => words(name ?? '')[0]));
  for (const q of [undefined, ...firstWords]) {
    const query = { limit: 2, ...(q ? { q } : {}) };
    answers[`advertisers q=${q}`] = await store.searchAdvertisers({ ...query, limit: 100 });
    answers[`webmasters q=${q}`] = await allPages((after) => store.searchWebmasters({ ...query, ...(after ? { after } : {}) }));
    answers[`creatives q=${q}`] = await allPages((after) => store.searchCreatives({ ...query, ...(after ? { after } : {}) }));
    answers[`domains q=${q}`] = await allPages((after) => store.searchDomains({ ...query, ...(after ? { after } : {}) }));
    answers[`apps q=${q}`] = await allPages((after) => store.searchApps({ ...query, ...(after ? { after } : {}) }));
  }
  answers['catalog'] = await store.catalog();
  return answers;
}

/** The answers without the change position of SQLite's pages (it names each store: the change feed's watermark). */
const withoutPositions = (answers: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(answers, (key, value: unknown) => (key === 'position' ? undefined : value))) as Record<string, unknown>;

/** The live store answers every question exactly as the offline one. */
export async function expectSameAnswers(pair: StorePair, records: readonly AdRecord[]): Promise<void> {
  const offline = withoutPositions(await storeAnswers(pair.offline, records));
  const live = withoutPositions(await storeAnswers(pair.live, records));
  expect(Object.keys(offline).length).toBeGreaterThan(200);
  expect(live).toEqual(offline);
}
