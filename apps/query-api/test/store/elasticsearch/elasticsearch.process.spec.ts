/**
 * query-api with STORE_ENGINE=elasticsearch, as the real built process (dist/apps/query-api), loading offline with the
 * `ingest` command, applying live sightings from its Redis stream, and serving every tool over the real transport:
 * every request it sends to Elasticsearch must validate against the official specification and break no rule
 * (spec/es-rules.ts). No Elasticsearch or OpenSearch server can run on the build machines (no package, no Docker
 * daemon), so a stand-in HTTP server (spec/es-server.ts) takes the requests, checks them, and answers in the
 * specification's shapes. The answers are plausible, not correct: this pins the requests, not the results (the
 * contract suite pins those against a real cluster, elasticsearch.contract.spec.ts with ES_URL).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AD_SORTS,
  BREAKDOWN_FIELDS,
  type MessageDefinition,
  OVERVIEW,
  QueryMessages,
  type RequestOf,
  type ResponseOf,
  ServiceError,
  SORT_ORDERS,
  TREND_DIMENSIONS,
} from '@adintel/contracts';
import { createRedis } from '@adintel/redis';
import { startApp, startPrivateRedis, WORKSPACE_ROOT, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';
import { startStandInCluster, type StandInCluster } from './spec/es-server';

jest.setTimeout(240_000);

const CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');
const STREAM = 'ingest:ads';

describe('query-api on Elasticsearch sends only requests the specification and the rules accept', () => {
  let cluster: StandInCluster;
  let redis: PrivateRedis;
  let app: AppProcess;
  let client: ServiceClient;
  let dataDir: string;
  let env: Record<string, string>;
  let demo: Record<string, unknown>[];
  /** Tool calls that failed with a fault of ours (internal) or of the cluster link (unavailable, timeout). */
  const faults: string[] = [];
  const served = new Set<string>();
  /** The position of the offline load (search_ads' watermark before the live sightings), for the change feed. */
  let loadWatermark: string | null = null;

  /** The CLI, run asynchronously: the stand-in cluster answers from this very process. */
  const cli = (args: string[]) => promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const send = async <M extends MessageDefinition>(message: M, request: RequestOf<M>): Promise<ResponseOf<M> | null> => {
    served.add(message.pattern);
    try {
      return await client.send(message, request);
    } catch (error) {
      if (error instanceof ServiceError && ['invalid_argument', 'not_found'].includes(error.code)) return null;
      faults.push(`${message.pattern} ${JSON.stringify(request)}: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  };
  const sent = (endpoint: string, test: (query: Record<string, string>, body: unknown) => boolean = () => true) =>
    cluster.requests.filter((r) => r.endpoint === endpoint && test(r.query, r.body));

  beforeAll(async () => {
    cluster = await startStandInCluster();
    dataDir = mkdtempSync(join(tmpdir(), 'query-api-es-'));
    redis = await startPrivateRedis();
    env = { DATA_DIR: dataDir, REDIS_URL: redis.url, STORE_ENGINE: 'elasticsearch', ES_URL: cluster.url, ES_INDEX_PREFIX: 'adi', QUERY_WORKERS: '0', LOG_LEVEL: 'warn' };
    const file = join(dataDir, 'demo.ndjson');
    await cli(['generate', '--out', file, '--count', '40']);
    demo = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    // Fails (rejects) on a non-zero exit.
    const ingest = await cli(['ingest', file]);
    expect(ingest.stderr).toContain('rejected 0 rows');
    app = await startApp({ name: 'query-api', env, readyPath: '/readyz' });
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 10_000 });
  });

  afterAll(async () => {
    await client?.close();
    await app?.stop();
    await redis?.stop();
    await cluster?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('loads offline: templates, mappings on existing indices, bulk, rollups and the alias swap', () => {
    expect(sent('indices.put_index_template')).toHaveLength(6);
    expect(sent('indices.put_mapping').map((r) => r.path)).toContain('/adi-ads-*/_mapping');
    expect(sent('bulk', (_q, body) => Array.isArray(body) && JSON.stringify(body[0]).includes('adi-ads-')).length).toBeGreaterThan(0);
    expect(sent('search', (_q, body) => JSON.stringify(body).includes('"composite"')).length).toBeGreaterThanOrEqual(5);
    expect(sent('indices.update_aliases')).toHaveLength(5);
  });

  it('applies live sightings with bulk writes that wait for visibility, and no refresh calls', async () => {
    loadWatermark = (await send(QueryMessages.searchAds, { limit: 1 }))?.pagination.watermark ?? null;
    const producer = createRedis({ url: redis.url, name: 'es-producer' });
    try {
      for (const line of demo.slice(0, 3)) await producer.xadd(STREAM, '*', 'line', JSON.stringify({ ...line, last_seen_date: '2026-11-16' }));
      const deadline = Date.now() + 60_000;
      while (!sent('bulk', (query) => query['refresh'] === 'wait_for').length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    } finally {
      producer.disconnect();
    }
    const live = sent('bulk', (query) => query['refresh'] === 'wait_for');
    expect(live.length).toBeGreaterThan(0);
    expect(JSON.stringify(live[0]?.body)).toContain('"version_type":"external_gte"');
    expect(sent('indices.refresh').filter((r) => cluster.requests.indexOf(r) > cluster.requests.indexOf(live[0] as never))).toEqual([]);
  });

  it('serves search_ads in every sort, order and filter, with paging and similar_to', async () => {
    for (const sort_by of AD_SORTS) {
      for (const sort_order of SORT_ORDERS) {
        const narrowing = sort_by === 'impressions' ? { advertiser_id: String(demo[0]?.['advertiser_id']) } : {};
        const first = await send(QueryMessages.searchAds, { sort_by, sort_order, limit: 2, ...narrowing });
        const cursor = first?.pagination.next_cursor;
        expect(cursor).toBeTruthy();
        await send(QueryMessages.searchAds, { sort_by, sort_order, limit: 2, cursor: cursor ?? '', ...narrowing });
      }
    }
    const ad = demo[0] ?? {};
    const filters: Record<string, unknown>[] = [
      { q: 'promo sale' },
      { country: 'US' },
      { platform: 'facebook' },
      { ai_category: 'finance_and_banking' },
      { status: 'active' },
      { advertiser_id: ad['advertiser_id'] },
      { landing_domain: 'example.com' },
      { creative_id: ad['creative_id'] },
      { date_from: '2026-10-01', date_to: '2026-11-15' },
      { similar_to: ad['id'] },
    ];
    for (const filter of filters) await send(QueryMessages.searchAds, { limit: 5, ...filter } as never);
    await send(QueryMessages.getAd, { id: String(ad['id']) });
    await send(QueryMessages.countAds, { country: 'US', limit: 30 });
    // The change feed since the load (the live sightings came after it): the feed's page, its count, a next page.
    expect(loadWatermark).toBeTruthy();
    const feed = await send(QueryMessages.searchAds, { limit: 2, country: 'US', changed_since: loadWatermark ?? '' });
    expect(feed?.pagination.watermark).toBeTruthy();
    expect(sent('search', (_q, body) => JSON.stringify(body).includes('"feed_since"')).length).toBeGreaterThan(0);
    if (feed?.pagination.next_cursor) await send(QueryMessages.searchAds, { limit: 2, country: 'US', changed_since: loadWatermark ?? '', cursor: feed.pagination.next_cursor });
    await send(QueryMessages.countAds, { limit: 30, changed_since: loadWatermark ?? '' });
  });

  it('serves every breakdown field, the overview, and every trend dimension with its filters', async () => {
    for (const field of [...BREAKDOWN_FIELDS, OVERVIEW] as const) await send(QueryMessages.adsBreakdown, { field: field as never, limit: 5 });
    for (const dimension of TREND_DIMENSIONS) {
      await send(QueryMessages.trends, { dimension, limit: 5 });
      await send(QueryMessages.trends, { dimension, limit: 5, country: 'US', platform: 'facebook', ai_category: 'finance_and_banking' });
    }
  });

  it('serves the entity tools, their paging and similar_to', async () => {
    const advertisers = await send(QueryMessages.searchAdvertisers, { q: 'acme', limit: 3 });
    const advertiser = advertisers?.data[0]?.id ?? String(demo[0]?.['advertiser_id']);
    await send(QueryMessages.getAdvertiser, { id: advertiser });
    await send(QueryMessages.advertiserActivity, { id: advertiser });
    const webmasters = await send(QueryMessages.searchWebmasters, { limit: 2 });
    if (webmasters?.pagination.next_cursor) await send(QueryMessages.searchWebmasters, { limit: 2, cursor: webmasters.pagination.next_cursor });
    const webmaster = webmasters?.data[0]?.id ?? 'wm_1';
    await send(QueryMessages.searchWebmasters, { similar_to: webmaster, limit: 3 });
    await send(QueryMessages.getWebmaster, { id: webmaster });
    const theirs = await send(QueryMessages.webmasterAdvertisers, { id: webmaster, limit: 2 });
    if (theirs?.pagination.next_cursor) await send(QueryMessages.webmasterAdvertisers, { id: webmaster, limit: 2, cursor: theirs.pagination.next_cursor });
    const creatives = await send(QueryMessages.searchCreatives, { q: 'offer', limit: 2 });
    const creative = creatives?.data[0]?.id ?? String(demo[0]?.['creative_id']);
    await send(QueryMessages.getCreative, { id: creative });
    await send(QueryMessages.searchCreatives, { similar_to: creative, limit: 3 });
    const domains = await send(QueryMessages.searchDomains, { limit: 2 });
    if (domains?.pagination.next_cursor) await send(QueryMessages.searchDomains, { limit: 2, cursor: domains.pagination.next_cursor });
    await send(QueryMessages.getDomain, { domain: domains?.data[0]?.domain ?? 'example.com' });
    const apps = await send(QueryMessages.searchApps, { limit: 2 });
    await send(QueryMessages.getApp, { id: apps?.data[0]?.id ?? 'app_1' });
    await send(QueryMessages.catalog, {});
    await send(QueryMessages.ping, {});
  });

  it('broke no rule and no specification type, in any request or stand-in answer, and no tool failed', () => {
    expect(faults).toEqual([]);
    expect(cluster.violations).toEqual([]);
    const media = QueryMessages.locateMedia.pattern; // files, not Elasticsearch
    expect([...served].sort()).toEqual(Object.values(QueryMessages).map((m) => m.pattern).filter((p) => p !== media).sort());
    expect(new Set(cluster.requests.map((r) => r.endpoint))).toEqual(
      new Set([
        'ping',
        'search',
        'bulk',
        'get',
        'index',
        'indices.put_index_template',
        'indices.put_mapping',
        'indices.create',
        'indices.get_alias',
        'indices.update_aliases',
        'indices.refresh',
        'open_point_in_time',
        'close_point_in_time',
      ]),
    );
  });
});
