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
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { Client } from '@elastic/elasticsearch';
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
    // Ready once the stand-in cluster, served from this (busy) test process, has answered its checks: in a CI run at
    // load 30 that took more than 30 s (startApp's READY_TIMEOUT_MS allows 120 s).
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

  it('loads offline into a new generation: templates, mappings on existing indices, bulk, rollups and one alias switch', () => {
    // The five entity kinds, and the generation's ad template twice: without the read alias while loading, with it at the switch.
    expect(sent('indices.put_index_template')).toHaveLength(7);
    expect(sent('indices.put_mapping').map((r) => r.path)).toContain('/adi-ads-*/_mapping');
    expect(sent('bulk', (_q, body) => Array.isArray(body) && JSON.stringify(body[0]).includes('adi-ads-')).length).toBeGreaterThan(0);
    expect(sent('search', (_q, body) => JSON.stringify(body).includes('"composite"')).length).toBeGreaterThanOrEqual(5);
    expect(sent('indices.update_aliases')).toHaveLength(1);
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
        'indices.get',
        'indices.get_alias',
        'indices.get_index_template',
        'indices.delete_index_template',
        'indices.update_aliases',
        'indices.refresh',
        'open_point_in_time',
        'close_point_in_time',
      ]),
    );
  });
});

/**
 * The offline load killed (SIGKILL) as the built CLI's `ingest` sends a chosen request: the request is lost with the
 * process (the stand-in never applies it). The stand-in runs in memory mode (spec/es-memory.ts, a double for a real
 * cluster): it keeps indices, aliases and templates, so what readers are served can be checked after each kill.
 */
describe('an Elasticsearch offline load killed at any step leaves the served generation; the next load cleans up and completes', () => {
  let cluster: StandInCluster;
  let dataDir: string;
  let env: Record<string, string>;
  let client: Client;
  /** Kill the running ingest when it sends a request of this endpoint. */
  let killAt: { endpoint: string; pid: number | undefined } | null = null;
  const files = { first: '', second: '' };
  let firstIds: string[] = [];
  let secondIds: string[] = [];

  const run = (args: string[]) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' }, (_error, _stdout, stderr) =>
        resolve({ code: child.exitCode, signal: child.signalCode, stderr }),
      );
      if (killAt) killAt.pid = child.pid;
    });
  /** The ids readers are served (the read alias), and the generation of the served feed index. */
  const served = async () => {
    await client.indices.refresh({ index: 'adi-ads', ignore_unavailable: true, allow_no_indices: true });
    const hits = (await client.search<{ id: string }>({ index: 'adi-ads', ignore_unavailable: true, allow_no_indices: true, size: 1_000, query: { match_all: {} } })).hits.hits;
    const feed = Object.keys(await client.indices.getAlias({ name: 'adi-feed' }, { ignore: [404] })).find((index) => index.startsWith('adi-feed-'));
    return { ids: hits.map((hit) => hit._source?.id ?? '').sort(), generation: feed?.slice('adi-feed-'.length) };
  };
  const generations = async () => {
    const indices = Object.keys(await client.indices.get({ index: 'adi-*', ignore_unavailable: true, allow_no_indices: true, features: ['aliases'] }));
    const templates = ((await client.indices.getIndexTemplate({ name: 'adi-ads-*' }, { ignore: [404] })).index_templates ?? []).map((t) => t.name);
    return new Set([...indices, ...templates].flatMap((name) => /-(\d{17})(?:-|$)/.exec(name)?.[1] ?? []));
  };
  const unservedLines = (stderr: string) =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['event'] === 'unserved_generation_removed');

  beforeAll(async () => {
    cluster = await startStandInCluster({
      memory: true,
      onRequest: (seen) => {
        if (!killAt?.pid || seen.endpoint !== killAt.endpoint) return undefined;
        process.kill(killAt.pid, 'SIGKILL');
        killAt = null;
        return 'lost';
      },
    });
    dataDir = mkdtempSync(join(tmpdir(), 'query-api-es-kill-'));
    env = { DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:6379', STORE_ENGINE: 'elasticsearch', ES_URL: cluster.url, ES_INDEX_PREFIX: 'adi', LOG_LEVEL: 'warn' };
    client = new Client({ node: cluster.url });
    const all = join(dataDir, 'all.ndjson');
    expect((await run(['generate', '--out', all, '--count', '60'])).code).toBe(0);
    const lines = readFileSync(all, 'utf8').trim().split('\n');
    files.first = join(dataDir, 'first.ndjson');
    files.second = join(dataDir, 'second.ndjson');
    writeFileSync(files.first, `${lines.slice(0, 30).join('\n')}\n`);
    writeFileSync(files.second, `${lines.slice(30).join('\n')}\n`);
    const ids = (part: string[]) => part.map((line) => String((JSON.parse(line) as { id: unknown }).id)).sort();
    firstIds = ids(lines.slice(0, 30));
    secondIds = ids(lines.slice(30));
  });

  afterAll(async () => {
    await client?.close();
    await cluster?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('loads a first store', async () => {
    const first = await run(['ingest', files.first]);
    expect(first.code).toBe(0);
    expect((await served()).ids).toEqual(firstIds);
  });

  // Mid-write (its first bulk of ads), building the new position, and the switch itself.
  for (const endpoint of ['bulk', 'index', 'indices.update_aliases']) {
    it(`killed at its first ${endpoint} request: readers keep the first store; the next load names and deletes what it left, then completes`, async () => {
      const before = await served();
      killAt = { endpoint, pid: undefined };
      const killed = await run(['ingest', files.second]);
      expect(killed.signal).toBe('SIGKILL');
      expect(await served()).toEqual(before);
      const left = [...(await generations())].filter((g) => g !== before.generation);
      expect(left).toHaveLength(1);

      const started = Date.now();
      const next = await run(['ingest', files.second]);
      expect(next.code).toBe(0);
      // Killed at the switch, the load held the feed's lease: the next load takes it over instead of waiting it out (120 s).
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(unservedLines(next.stderr)).toEqual([expect.objectContaining({ generation: left[0], served_generation: before.generation, left_by: 'a load stopped before its switch' })]);
      const after = await served();
      // An ingest adds to the store: the first store's ads and the second file's.
      expect(after.ids).toEqual([...firstIds, ...secondIds].sort());
      expect([...(await generations())]).toEqual([after.generation]);
    });
  }

  it('sent only requests the specification and the rules accept', () => {
    expect(cluster.violations).toEqual([]);
  });
});
