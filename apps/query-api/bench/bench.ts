/**
 * Benchmark (not a test): builds 100k and 1M-ad SQLite stores from the demo generator, measures ingest
 * rows/s, then p50/p95 of every tool's store query in-process, and the 1M/100k ratio. A search_ads case runs
 * what the service runs for one call: the page and its total (countAds up to EXACT_TOTAL_UP_TO), side by side.
 * Run: npx nx run query-api:bench [-- --sizes=100000,1000000 --runs=40]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AdSort } from '@adintel/contracts';
import { EXACT_TOTAL_UP_TO } from '../src/ads/ads.service';
import type { AdFilter, AdStore, SortKey, TrendQuery } from '../src/store/ad-store.port';
import { writeDemoNdjson } from '../src/ingest/demo-generator';
import { ingestFile } from '../src/ingest/ingest';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../src/store/sqlite/sqlite-writer';
import { addDays } from '../src/store/text';
import { previousWindow } from '../src/trends/trends.service';

type Case = { name: string; kind: 'paged' | 'trend' | 'lookup' | 'aggregate'; run: (i: number) => Promise<unknown> };

const out = (s: string) => process.stdout.write(`${s}\n`);

async function casesFor(store: AdStore): Promise<Case[]> {
  const catalog = await store.catalog();
  const today = catalog.lastSeenDate ?? '2026-11-15';
  const countries = catalog.countries.slice(0, 20);
  const categories = catalog.categories.slice(0, 10);
  const advertisers = await store.searchAdvertisers({ limit: 20 });
  const webmasters = (await store.searchWebmasters({ limit: 20 })).rows;
  const creatives = (await store.searchCreatives({ limit: 20 })).rows;
  const domains = (await store.searchDomains({ limit: 20 })).rows;
  const apps = (await store.searchApps({ limit: 20 })).rows;
  const firstPage = await store.searchAds({ filter: {}, sort: 'date', order: 'desc', limit: 50 });
  const byImpressions = await store.searchAds({ filter: {}, sort: 'impressions', order: 'desc', limit: 50 });
  const adIds = firstPage.rows.map((a) => a.id);
  const at = <T>(items: T[], i: number): T => items[i % items.length] as T;
  const window = { from: addDays(today, -29), to: today };
  const trend = (dimension: TrendQuery['dimension']) => (i: number) =>
    store.trends({
      dimension,
      filter: i % 3 === 1 ? { country: at(countries, i) } : i % 3 === 2 ? { category: at(categories, i) } : {},
      window,
      previous: previousWindow(window),
      limit: 50,
    });
  const words = ['casino', 'loan', 'sale', 'game', 'dating', 'credit', 'shop', 'bonus'];
  // What AdsService.search runs for one search_ads call: the page and its total, side by side.
  const search = (filter: (i: number) => AdFilter, sort: AdSort = 'date', after?: SortKey, limit = 50) => (i: number) => {
    const f = filter(i);
    return Promise.all([
      store.searchAds({ filter: f, sort, order: 'desc', limit, ...(after ? { after } : {}) }),
      store.countAds(f, EXACT_TOTAL_UP_TO),
    ]);
  };
  const count = (filter: (i: number) => AdFilter) => (i: number) => store.countAds(filter(i), EXACT_TOTAL_UP_TO);
  const country = (i: number) => at(countries, i);
  const category = (i: number) => [at(categories, i)];
  const dateRange = (i: number) => ({ dateFrom: addDays(today, -60 - i), dateTo: addDays(today, -30 - i) });
  return [
    // search_ads as agents call it (page + total): the filter combinations the tool mix sends.
    { name: 'search_ads (no filter, date desc)', kind: 'paged', run: search(() => ({})) },
    { name: 'search_ads next page (keyset)', kind: 'paged', run: search(() => ({}), 'date', firstPage.lastKey ?? undefined) },
    { name: 'search_ads country', kind: 'paged', run: search((i) => ({ country: country(i) })) },
    // The call the end-to-end bench (apps/e2e/bench) drives through the gateway: its in-process share.
    { name: 'search_ads US limit 20', kind: 'paged', run: search(() => ({ country: 'US' }), 'date', undefined, 20) },
    // The steady load of e2e:live-bench, limit 20 as it asks.
    { name: 'search_ads tiktok+status limit 20', kind: 'paged', run: search(() => ({ platforms: ['tiktok'], status: 'active' }), 'date', undefined, 20) },
    { name: 'search_ads BR+gambling limit 20', kind: 'paged', run: search(() => ({ country: 'BR', categories: ['gambling_and_betting'] }), 'date', undefined, 20) },
    { name: 'count_ads tiktok+status', kind: 'aggregate', run: count(() => ({ platforms: ['tiktok'], status: 'active' })) },
    { name: 'search_ads country+category', kind: 'paged', run: search((i) => ({ country: country(i), categories: category(i) })) },
    { name: 'search_ads country+status', kind: 'paged', run: search((i) => ({ country: country(i), status: 'active' })) },
    {
      name: 'search_ads country+category+status (popular)',
      kind: 'paged',
      run: search((i) => ({ country: country(i), categories: category(i), status: 'active' }), 'most_popular'),
    },
    { name: 'search_ads q', kind: 'paged', run: search((i) => ({ words: [at(words, i)] })) },
    { name: 'search_ads q+country', kind: 'paged', run: search((i) => ({ words: [at(words, i)], country: country(i) })) },
    { name: 'search_ads advertiser_id', kind: 'paged', run: search((i) => ({ advertiserId: at(advertisers, i).id })) },
    { name: 'search_ads advertiser_id by impressions', kind: 'paged', run: search((i) => ({ advertiserId: at(advertisers, i).id }), 'impressions') },
    { name: 'search_ads landing_domain', kind: 'paged', run: search((i) => ({ landingDomain: at(domains, i).domain })) },
    { name: 'search_ads date range (days_active)', kind: 'paged', run: search(dateRange, 'days_active') },
    { name: 'search_ads (no filter) by impressions', kind: 'paged', run: search(() => ({}), 'impressions') },
    { name: 'search_ads by impressions, next page (keyset)', kind: 'paged', run: search(() => ({}), 'impressions', byImpressions.lastKey ?? undefined) },
    { name: 'search_ads country by activity_days_amount', kind: 'paged', run: search((i) => ({ country: country(i) }), 'activity_days_amount') },
    { name: 'search_ads q by most_popular', kind: 'paged', run: search((i) => ({ words: [at(words, i)] }), 'most_popular') },
    { name: 'search_ads status by days_active', kind: 'paged', run: search(() => ({ status: 'active' }), 'days_active') },
    { name: 'search_ads country+category by impressions', kind: 'paged', run: search((i) => ({ country: country(i), categories: category(i) }), 'impressions') },
    { name: 'count_ads (no filter)', kind: 'aggregate', run: count(() => ({})) },
    { name: 'count_ads country', kind: 'aggregate', run: count((i) => ({ country: country(i) })) },
    { name: 'count_ads country+category', kind: 'aggregate', run: count((i) => ({ country: country(i), categories: category(i) })) },
    { name: 'count_ads q', kind: 'aggregate', run: count((i) => ({ words: [at(words, i)] })) },
    { name: 'count_ads landing_domain', kind: 'aggregate', run: count((i) => ({ landingDomain: at(domains, i).domain })) },
    { name: 'count_ads date range', kind: 'aggregate', run: count(dateRange) },
    { name: 'get_ads_breakdown country (advertiser)', kind: 'aggregate', run: (i) => store.breakdown({ advertiserId: at(advertisers, i).id }, 'country', 50) },
    { name: 'get_ad', kind: 'lookup', run: (i) => store.getAd(at(adIds, i)) },
    { name: 'trends geo', kind: 'trend', run: trend('geo') },
    { name: 'trends advertisers/cards', kind: 'trend', run: trend('advertisers/cards') },
    { name: 'trends webmasters', kind: 'trend', run: trend('webmasters') },
    { name: 'trends apps', kind: 'trend', run: trend('apps') },
    { name: 'trends timeline', kind: 'trend', run: trend('timeline') },
    { name: 'trends scaling-creatives', kind: 'trend', run: trend('scaling-creatives') },
    { name: 'search_advertisers (autocomplete)', kind: 'paged', run: (i) => store.searchAdvertisers({ q: at(advertisers, i).name.slice(0, 3).toLowerCase(), limit: 10 }) },
    { name: 'get_advertiser', kind: 'lookup', run: (i) => store.getAdvertiser(at(advertisers, i).id) },
    { name: 'get_advertiser_activity', kind: 'lookup', run: (i) => store.advertiserActivity(at(advertisers, i).id, window) },
    { name: 'search_webmasters', kind: 'paged', run: () => store.searchWebmasters({ limit: 50 }) },
    { name: 'get_webmaster', kind: 'lookup', run: (i) => store.getWebmaster(at(webmasters, i).id) },
    { name: 'list_webmaster_advertisers', kind: 'paged', run: (i) => store.webmasterAdvertisers(at(webmasters, i).id, { limit: 50 }) },
    { name: 'search_creatives', kind: 'paged', run: (i) => store.searchCreatives({ q: at(words, i), limit: 50 }) },
    { name: 'get_creative', kind: 'lookup', run: (i) => store.getCreative(at(creatives, i).id) },
    { name: 'search_domains', kind: 'paged', run: () => store.searchDomains({ limit: 50 }) },
    { name: 'get_domain', kind: 'lookup', run: (i) => store.getDomain(at(domains, i).domain) },
    { name: 'search_apps', kind: 'paged', run: () => store.searchApps({ limit: 50 }) },
    { name: 'get_app', kind: 'lookup', run: (i) => store.getApp(at(apps, i).id) },
    { name: 'get_catalog', kind: 'lookup', run: () => store.catalog() },
  ];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * Wall-clock p50/p95, and the p50 of the CPU time the process spent on one call (in-process stores run the
 * query on this thread): on a shared machine the wall clock includes waiting for a core, the CPU time does not.
 */
async function measure(c: Case, runs: number): Promise<{ p50: number; p95: number; cpu50: number }> {
  for (let i = 0; i < 3; i++) await c.run(i); // warm-up
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    await c.run(i);
    const used = process.cpuUsage(cpuStarted);
    times.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), cpu50: percentile(cpu, 50) };
}

async function main() {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '100000,1000000' },
      runs: { type: 'string', default: '40' },
      // Re-run only finish() (indexes exist already, so: rollups, catalog, analyze) on an existing store, for profiling.
      refinish: { type: 'string' },
      // Time the queries of an existing store only (no ingest), optionally only the cases whose name contains --cases.
      store: { type: 'string' },
      cases: { type: 'string' },
      // With --store: the planner's threshold for the columnar ad search (-1 forces it).
      'columnar-above': { type: 'string' },
    },
  });
  const selected = (c: Case) => !values.cases || c.name.includes(values.cases);
  if (values.refinish) {
    const writer = new SqliteWriter(values.refinish);
    await writer.finish();
    await writer.close();
    out(Object.entries(writer.timings).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', '));
    return;
  }
  if (values.store) {
    const threshold = values['columnar-above'];
    const store = new SqliteStore({ file: values.store, workers: 0, ...(threshold === undefined ? {} : { tuning: { columnarAboveCost: Number(threshold) } }) });
    for (const c of (await casesFor(store)).filter(selected)) {
      const { p50, p95, cpu50 } = await measure(c, Number(values.runs));
      out(`${c.name}: p50 ${p50.toFixed(2)} p95 ${p95.toFixed(2)} cpu p50 ${cpu50.toFixed(2)}`);
    }
    await store.close();
    return;
  }
  const sizes = values.sizes.split(',').map(Number);
  const runs = Number(values.runs);
  const root = join(process.cwd(), 'tmp', 'query-bench');
  const results = new Map<number, { ingest: number; cases: Map<string, { p50: number; p95: number; cpu50: number; kind: string }> }>();

  for (const size of sizes) {
    const dir = join(root, String(size));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'ads.ndjson');
    out(`# ${size} ads: generating...`);
    await writeDemoNdjson(file, size);
    const writer = new SqliteWriter(join(dir, 'ads.sqlite'));
    const summary = await ingestFile(file, writer, { progress: false });
    await writer.close();
    out(`# ${size} ads: ingest ${summary.written} rows in ${summary.seconds.toFixed(1)} s = ${summary.rowsPerSecond} rows/s (finish ${summary.finishSeconds.toFixed(1)} s: ${Object.entries(writer.timings).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ")})`);
    const store = new SqliteStore({ file: join(dir, 'ads.sqlite'), workers: 0 });
    const cases = new Map<string, { p50: number; p95: number; cpu50: number; kind: string }>();
    for (const c of await casesFor(store)) cases.set(c.name, { ...(await measure(c, runs)), kind: c.kind });
    await store.close();
    results.set(size, { ingest: summary.rowsPerSecond, cases });
  }

  const [small, large] = sizes;
  const a = results.get(small ?? 0);
  const b = results.get(large ?? 0);
  const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(n < 10 ? 2 : 1));
  out('');
  out(`| query | kind | p50 ${small} | cpu p50 ${small} | p95 ${small} | p50 ${large ?? '-'} | cpu p50 ${large ?? '-'} | p95 ${large ?? '-'} | p95 ratio |`);
  out('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of a?.cases ?? []) {
    const l = b?.cases.get(name);
    out(
      `| ${name} | ${r.kind} | ${fmt(r.p50)} | ${fmt(r.cpu50)} | ${fmt(r.p95)} | ${fmt(l?.p50)} | ${fmt(l?.cpu50)} | ${fmt(l?.p95)} | ${l ? (l.p95 / Math.max(r.p95, 0.01)).toFixed(1) : '-'} |`,
    );
  }
  out(`| ingest rows/s | | ${a?.ingest ?? '-'} | | | ${b?.ingest ?? '-'} | | | |`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
