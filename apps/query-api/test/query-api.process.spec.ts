import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryMessages, type Creative, type MessageDefinition, type RequestOf, type ResponseOf, ServiceError } from '@adintel/contracts';
import { FilesystemMediaReader } from '@adintel/media-store';
import { copySeededStore, startApp, startPrivateRedis, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';

// The seed renders a picture per demo creative (about 1,400 at 3,000 ads), once a build, maybe for another suite that
// asked first: allow for that on a loaded machine.
jest.setTimeout(600_000);

const SEEDED = 3_000;

/** The built app (dist/apps/query-api) as a real process on seeded demo data, over the real transport. */
describe('query-api as a process, over the transport', () => {
  let redis: PrivateRedis;
  let app: AppProcess;
  let client: ServiceClient;
  let dataDir: string;
  const served = new Set<string>();

  const send = async <M extends MessageDefinition>(message: M, request: RequestOf<M>): Promise<ResponseOf<M>> => {
    served.add(message.pattern);
    return client.send(message, request);
  };
  const failure = async (promise: Promise<unknown>): Promise<ServiceError> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'query-api-process-'));
    redis = await startPrivateRedis();
    const env = { DATA_DIR: dataDir, REDIS_URL: redis.url, QUERY_WORKERS: '2', LOG_LEVEL: 'warn' };
    // This build's seeded store, made once for every process suite that asks (the e2e suites copy the same one).
    await copySeededStore(SEEDED, dataDir, env);
    app = await startApp({ name: 'query-api', env, readyPath: '/readyz' });
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 10_000 });
  });

  afterAll(async () => {
    await client?.close();
    await app?.stop();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is ready when the store and the transport answer', async () => {
    const res = await fetch(`${app.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ready', checks: { store: { ok: true }, transport: { ok: true } } });
    expect(await send(QueryMessages.ping, {})).toMatchObject({ service: 'query-api' });
  });

  it('searches, pages, counts and breaks down ads', async () => {
    const first = await send(QueryMessages.searchAds, { limit: 20 });
    expect(first.data).toHaveLength(20);
    expect(first.pagination).toMatchObject({ has_more: true, total: SEEDED, total_estimated: false });
    const cursor = first.pagination.next_cursor ?? '';
    const second = await send(QueryMessages.searchAds, { limit: 20, cursor });
    expect(second.data.map((a) => a.id)).not.toEqual(expect.arrayContaining([first.data[0]?.id]));
    const dates = [...first.data, ...second.data].map((a) => a.first_seen_date);
    expect(dates).toEqual([...dates].sort().reverse());

    const foreign = await failure(send(QueryMessages.searchAds, { limit: 20, cursor, country: 'US' }));
    expect(foreign.payload).toMatchObject({ code: 'invalid_argument', errors: [expect.objectContaining({ field: 'cursor' })] });
    const forged = await failure(send(QueryMessages.searchAds, { cursor: `${cursor.slice(0, -2)}xx` }));
    expect(forged.payload.errors?.[0]?.field).toBe('cursor');
    const impressions = await failure(send(QueryMessages.searchAds, { sort_by: 'impressions' }));
    expect(impressions.payload.errors?.[0]?.field).toBe('sort_by');

    const ad = first.data[0];
    if (!ad) throw new Error('no ads seeded');
    const detail = await send(QueryMessages.getAd, { id: ad.id });
    expect(detail).toMatchObject({ id: ad.id, advertiser: { id: ad.advertiser_id } });
    expect((await failure(send(QueryMessages.getAd, { id: 'ad_nope' }))).code).toBe('not_found');

    const host = ad.landing_domain.split('.').slice(-2).join('.');
    const onDomain = await send(QueryMessages.searchAds, { landing_domain: host, limit: 100 });
    expect(onDomain.data.length).toBeGreaterThan(0);
    for (const a of onDomain.data) expect(a.landing_domain === host || a.landing_domain.endsWith(`.${host}`)).toBe(true);

    const count = await send(QueryMessages.countAds, { country: 'US', limit: 30 });
    expect(count.total).toBeGreaterThan(0);
    expect(count.cost_of_next_page).toBe(Math.min(30, count.total));
    const breakdown = await send(QueryMessages.adsBreakdown, { field: 'country', limit: 5 });
    expect(breakdown.total).toBe(SEEDED);
    const volumes = breakdown.data.map((b) => b.ads);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(breakdown.data.find((b) => b.key === 'US')).toMatchObject({ label: 'United States' });
  });

  it('turns bad input into typed errors naming the field', async () => {
    const longWindow = await failure(send(QueryMessages.trends, { dimension: 'timeline', date_from: '2000-01-01' }));
    expect(longWindow.payload).toMatchObject({ code: 'invalid_argument', errors: [expect.objectContaining({ field: 'date_from' })] });
    const noWords = await failure(send(QueryMessages.searchAds, { q: '!!!' }));
    expect(noWords.payload.errors?.[0]?.field).toBe('q');
    const unknown = await failure(send(QueryMessages.searchAds, { colour: 'red' } as never));
    expect(unknown.payload.errors?.[0]?.field).toBe('colour');
    expect((await failure(send(QueryMessages.getDomain, { domain: 'never-seen-domain.com' }))).code).toBe('not_found');
  });

  it('answers trends in all six dimensions with share, change and evidence', async () => {
    for (const dimension of ['geo', 'advertisers/cards', 'webmasters', 'apps', 'timeline', 'scaling-creatives'] as const) {
      const trends = await send(QueryMessages.trends, { dimension, limit: 5 });
      expect(trends.window.date_to).toBe('2026-11-15');
      expect(trends.data.length).toBeGreaterThan(0);
      const row = trends.data[0];
      expect(row?.evidence.tool).toBe('search_ads');
      if (dimension !== 'timeline' && row) {
        // The evidence lists exactly the ads behind the row.
        const listed = await send(QueryMessages.countAds, { ...(row.evidence.arguments as Record<string, never>) });
        expect(listed.total).toBe(row.ads);
      }
    }
  });

  it('serves advertisers, webmasters, creatives, domains, apps and the catalog', async () => {
    const advertisers = await send(QueryMessages.searchAdvertisers, { limit: 3 });
    const top = advertisers.data[0];
    if (!top) throw new Error('no advertisers');
    const byPrefix = await send(QueryMessages.searchAdvertisers, { q: top.name.slice(0, 4), limit: 50 });
    expect(byPrefix.data.map((a) => a.id)).toContain(top.id);
    expect(await send(QueryMessages.getAdvertiser, { id: top.id })).toMatchObject({ id: top.id, ads_total: top.ads_total });
    const activity = await send(QueryMessages.advertiserActivity, { id: top.id });
    expect(activity.data).toHaveLength(30);

    const webmasters = await send(QueryMessages.searchWebmasters, { limit: 2 });
    expect(webmasters.pagination.has_more).toBe(true);
    const more = await send(QueryMessages.searchWebmasters, { limit: 2, cursor: webmasters.pagination.next_cursor ?? '' });
    expect(more.data[0]?.id).not.toBe(webmasters.data[0]?.id);
    const wm = webmasters.data[0];
    if (!wm) throw new Error('no webmasters');
    expect((await send(QueryMessages.getWebmaster, { id: wm.id })).dominant_country).toBe(wm.dominant_country);
    expect((await send(QueryMessages.webmasterAdvertisers, { id: wm.id, limit: 5 })).data.length).toBeGreaterThan(0);

    const creatives = await send(QueryMessages.searchCreatives, { limit: 5 });
    const creative = creatives.data[0];
    if (!creative) throw new Error('no creatives');
    expect((await send(QueryMessages.getCreative, { id: creative.id })).ads_count).toBe(creative.ads_count);

    const domains = await send(QueryMessages.searchDomains, { limit: 5 });
    const domain = domains.data[0];
    if (!domain) throw new Error('no domains');
    expect((await send(QueryMessages.getDomain, { domain: `promo.${domain.domain}` })).domain).toBe(domain.domain);

    const apps = await send(QueryMessages.searchApps, { limit: 5 });
    const promoted = apps.data[0];
    if (!promoted) throw new Error('no apps');
    expect((await send(QueryMessages.getApp, { id: promoted.id })).id).toBe(promoted.id);

    const catalog = await send(QueryMessages.catalog, {});
    expect(catalog.data_window.last_seen_date).toBe('2026-11-15');
    expect(catalog).toMatchObject({ data_as_of: '2026-11-15', data_updated_at: null });
    expect(catalog.categories.map((c) => c.value)).toEqual(expect.arrayContaining(['gambling_and_betting', 'finance_and_banking']));
    expect(catalog.tools).toHaveLength(20);
  });

  it('serves the seeded creatives\' pictures: file, thumbnail and byte ranges, from the files the seed stored', async () => {
    const creatives = await send(QueryMessages.searchCreatives, { limit: 20 });
    let pictured: Creative | null = null;
    for (const row of creatives.data) {
      const creative = await send(QueryMessages.getCreative, { id: row.id });
      if (creative.media[0]?.bytes) {
        pictured = creative;
        break;
      }
    }
    if (!pictured) throw new Error('no creative with a stored picture');
    const entry = pictured.media[0] as Creative['media'][number];
    expect(entry.url).toBe(`http://localhost:3000/api/v1/creo/${pictured.id}/media/0`);
    // query-api names the file; its bytes are in the media store (DATA_DIR/media), where the gateway reads them.
    const file = await send(QueryMessages.locateMedia, { creative_id: pictured.id, index: 0, variant: 'file' });
    expect(file.key).toMatch(/^[0-9a-f]{64}\.webp$/);
    const reader = new FilesystemMediaReader(join(dataDir, 'media'));
    expect(await reader.stat(file.key)).toEqual({ key: file.key, mime: 'image/webp', bytes: entry.bytes });
    const bytes = readFileSync(join(dataDir, 'media', file.key.slice(0, 2), file.key));
    expect(file.key).toBe(`${createHash('sha256').update(bytes).digest('hex')}.webp`);
    const thumbnail = await send(QueryMessages.locateMedia, { creative_id: pictured.id, index: 0, variant: 'thumbnail' });
    expect((await reader.stat(thumbnail.key))?.bytes).toBeLessThan(bytes.length);
    expect((await failure(send(QueryMessages.locateMedia, { creative_id: pictured.id, index: 49, variant: 'file' }))).code).toBe('not_found');
    expect((await failure(send(QueryMessages.locateMedia, { creative_id: 'cr_nope', index: 0, variant: 'file' }))).code).toBe('not_found');
    const similar = await send(QueryMessages.searchCreatives, { similar_to: pictured.id, limit: 5 });
    expect(similar.data.every((row) => row.match?.[0] === 'near_duplicate' && row.id !== pictured?.id)).toBe(true);
  });

  it('served every query pattern of the catalogue', () => {
    expect([...served].sort()).toEqual(Object.values(QueryMessages).map((m) => m.pattern).sort());
  });
});
