/**
 * The Elasticsearch writer's live path (apply) through the real client over @elastic/elasticsearch-mock. The mock
 * stands in for the Elasticsearch server, which cannot run on the build machines: each test below scripts the
 * cluster's answers (stored copies, bulk item statuses, 429s, rollup buckets) and checks the requests the writer
 * sends. The same path runs against a real cluster in the equivalence check of elasticsearch.contract.spec.ts when
 * ES_URL is set.
 */
import { Client } from '@elastic/elasticsearch';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { toAdDocument } from '../../../src/store/elasticsearch/ad-document';
import { ElasticsearchAdStoreWriter } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import { indexNames } from '../../../src/store/elasticsearch/index-names';
import { FIXTURE_RECORDS } from '../store-fixture';
import { createdIndex, mockFeedPosition, responseError, rollupBucket, searchBody } from './es-mock';
import { validatingMock } from './spec/validating-mock';

/** Every request the client sends is checked against the Elasticsearch specification and rules (spec/). */
const { mock, violations } = validatingMock();
afterEach(() => {
  expect(violations.splice(0)).toEqual([]);
});
const client = new Client({ node: 'http://es.test:9200', Connection: mock.getConnection(), maxRetries: 0 });
/** Pauses of 0-2 ms: the retry schedule itself is pinned in queries/live.query.spec.ts. */
const writer = () => new ElasticsearchAdStoreWriter(client, 'adi', false, { backoff: { retries: 2, baseMs: 1, maxMs: 2 } });

const record = (id: string, overrides: Partial<AdRecord> = {}): AdRecord => {
  const found = FIXTURE_RECORDS.find((r) => r.id === id);
  if (!found) throw new Error(`no fixture ad ${id}`);
  return { ...found, ...overrides };
};
const stored = (r: AdRecord) => ({
  _index: indexNames('adi').adsIndexFor(r.first_seen_date),
  _id: r.id,
  _source: JSON.parse(JSON.stringify(toAdDocument(r))) as unknown,
});

type Line = Record<string, { _index: string; _id: string; version?: number; version_type?: string } | undefined>;
interface BulkCall {
  actions: Line[];
  documents: unknown[];
  /** The request's `refresh` parameter. */
  refresh: unknown;
}
type Status = number | { status: number; type: string; reason: string };

/**
 * The double standing in for the Elasticsearch server (none can run here): templates and aliases exist, `_search` answers the stored copies of the ids asked
 * (the classification search) or one rollup bucket per touched entity that still has ads, and every `_bulk` is
 * recorded and answered by `bulkAnswer` (per call: an error for the whole request, or one status per action).
 */
function cluster(options: {
  stored?: ReturnType<typeof stored>[];
  withAds?: string[];
  bulkAnswer?: (call: BulkCall, n: number) => Error | Status[];
  aliases?: boolean;
}) {
  const seen = { bulks: [] as BulkCall[], rollups: [] as Record<string, unknown>[], refreshed: [] as string[], created: [] as unknown[], templates: [] as unknown[], aliasLookups: 0 };
  mock.add({ method: 'PUT', path: '/_index_template/:name' }, (params) => {
    seen.templates.push({ path: params.path, aliases: (params.body as { template?: { aliases?: unknown } }).template?.aliases });
    return { acknowledged: true };
  });
  mock.add({ method: 'PUT', path: '/:index/_mapping' }, () => ({ acknowledged: true }));
  mockFeedPosition(mock);
  mock.add({ method: 'GET', path: '/_alias/:name' }, (params) => {
    const alias = String(params.path).split('/').pop() ?? '';
    seen.aliasLookups++;
    return options.aliases === false ? responseError(404, 'aliases_not_found_exception') : { [`${alias}-20260101000000000`]: { aliases: { [alias]: {} } } };
  });
  mock.add({ method: 'PUT', path: '/:index' }, (params) => {
    seen.created.push({ path: params.path, body: params.body });
    return createdIndex(String(params.path).slice(1));
  });
  mock.add({ method: ['GET', 'POST'], path: '/:index/_refresh' }, (params) => {
    seen.refreshed.push(decodeURIComponent(String(params.path).split('/')[1] ?? ''));
    return { _shards: { total: 1, successful: 1, failed: 0 } };
  });
  mock.add({ method: 'POST', path: '/adi-ads/_search' }, (params) => {
    const body = params.body as {
      query?: { ids?: { values: string[] }; bool?: { filter: { terms: Record<string, string[]> }[] } };
      aggs?: { day?: unknown; entities?: { composite: { after?: unknown } } };
    };
    if (body.query?.ids) {
      const ids = new Set(body.query.ids.values);
      return searchBody({ hits: (options.stored ?? []).filter((hit) => ids.has(hit._id)) as { _source: Record<string, unknown> }[] });
    }
    // The data's day of a store without a feed position yet: none (an empty store).
    if (body.aggs?.day) return searchBody({ aggregations: { day: { value: null } } });
    seen.rollups.push(body as Record<string, unknown>);
    const terms = body.query?.bool?.filter[0]?.terms ?? {};
    const keys = (Object.values(terms)[0] ?? []).filter((key) => (options.withAds ?? []).includes(key));
    const buckets = body.aggs?.entities?.composite.after ? [] : keys.map((key) => rollupBucket(body, key, 1));
    return searchBody({ aggregations: { entities: { after_key: { key: keys.at(-1) ?? '' }, buckets } } });
  });
  mock.add({ method: ['POST', 'PUT'], path: '/_bulk' }, (params) => {
    const lines = params.body as unknown as Line[];
    const call: BulkCall = { actions: [], documents: [], refresh: params.querystring?.['refresh'] };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as Line;
      call.actions.push(line);
      if (!line['delete']) call.documents.push(lines[++i]);
    }
    seen.bulks.push(call);
    const answer = options.bulkAnswer?.(call, seen.bulks.length) ?? call.actions.map(() => 201);
    if (answer instanceof Error) return answer;
    const items = call.actions.map((action, position) => {
      const [type, meta] = Object.entries(action)[0] ?? ['index', undefined];
      const status = answer[position] ?? 201;
      const detail = typeof status === 'number' ? { status } : { status: status.status, error: { type: status.type, reason: status.reason } };
      return { [type]: { _index: meta?._index, _id: meta?._id, ...detail } };
    });
    return { took: 1, errors: items.some((item) => (Object.values(item)[0]?.status ?? 0) >= 300), items };
  });
  return seen;
}

const isAdBulk = (call: BulkCall) => call.actions.every((a) => (a['index'] ?? a['delete'])?._index.startsWith('adi-ads-'));
// each bulk action is one `{ <type>: <meta> }` pair
const targets = (call: BulkCall) => call.actions.flatMap((a) => Object.entries(a).slice(0, 1).map(([type, meta]) => `${type} ${meta?._index}/${meta?._id}`));

afterEach(() => mock.clearAll());

describe('ElasticsearchAdStoreWriter.apply over the mock transport (standing in for the cluster)', () => {
  it('retries a whole-request 429, then applies the batch', async () => {
    const seen = cluster({ bulkAnswer: (_call, n) => (n === 1 ? responseError(429, 'es_rejected_execution_exception') : []) });
    const result = await writer().apply([record('ad_01'), record('ad_09')]);
    const adBulks = seen.bulks.filter(isAdBulk);
    expect(adBulks.map(targets)).toEqual([
      ['index adi-ads-2026.01/ad_01', 'index adi-ads-2026.01/ad_09'],
      ['index adi-ads-2026.01/ad_01', 'index adi-ads-2026.01/ad_09'],
    ]);
    expect(result).toEqual({ added: 2, replaced: 0, unchanged: 0, rejected: [] });
    // Visible when the bulk returns (refresh=wait_for), without a refresh call of its own.
    expect(adBulks.map((call) => call.refresh)).toEqual(['wait_for', 'wait_for']);
    expect(seen.refreshed).toEqual([]);
  });

  it('sends a per-item 429 again alone; a refused item is a rejected row and keeps its old copy', async () => {
    const moved = record('ad_02');
    const seen = cluster({
      // ad_02 is stored in December and re-sighted with a January first_seen_date.
      stored: [stored({ ...moved, first_seen_date: '2025-12-30' })],
      bulkAnswer: (call, n) =>
        n === 1
          ? [201, 429, { status: 400, type: 'mapper_parsing_exception', reason: 'failed to parse field [impressions]' }]
          : call.actions.map(() => 201),
    });
    const result = await writer().apply([record('ad_01'), record('ad_09'), moved]);
    const adBulks = seen.bulks.filter(isAdBulk);
    expect(adBulks.map(targets)).toEqual([
      ['index adi-ads-2026.01/ad_01', 'index adi-ads-2026.01/ad_09', 'index adi-ads-2026.01/ad_02'],
      ['index adi-ads-2026.01/ad_09'],
    ]);
    // No delete of ad_02's December copy: its new version was refused, so the old one stays readable.
    expect(adBulks.flatMap(targets).filter((t) => t.startsWith('delete'))).toEqual([]);
    expect(result).toEqual({
      added: 2,
      replaced: 0,
      unchanged: 0,
      rejected: [{ line: 0, id: 'ad_02', reason: 'Elasticsearch refused the ad (400) mapper_parsing_exception: failed to parse field [impressions]' }],
    });
  });

  it('fails the batch as unavailable when 429s outlast the retries (the caller keeps the batch)', async () => {
    const seen = cluster({ bulkAnswer: (call) => call.actions.map(() => 429) });
    await expect(writer().apply([record('ad_01')])).rejects.toMatchObject({ code: 'unavailable' });
    expect(seen.bulks).toHaveLength(3); // the first round and 2 retries
  });

  it('does not re-index an unchanged record, and deletes a copy left in another month', async () => {
    const current = record('ad_03');
    const seen = cluster({ stored: [stored(current), stored({ ...current, first_seen_date: '2025-12-20' })], withAds: ['adv_acme'] });
    const result = await writer().apply([current]);
    expect(result).toEqual({ added: 0, replaced: 0, unchanged: 1, rejected: [] });
    expect(seen.bulks.filter(isAdBulk).map(targets)).toEqual([['delete adi-ads-2025.12/ad_03']]);
  });

  it('a re-sighting with a bare media URL keeps the stored file of that URL; its re-delivery indexes nothing', async () => {
    const file = { type: 'image' as const, key: 'ab'.repeat(32) + '.webp', mime: 'image/webp' as const, bytes: 900, width: 100, height: 100, duration_seconds: null, thumbnail_key: 'cd'.repeat(32) + '.webp', poster_key: null, phash: '0f'.repeat(32) };
    const held = record('ad_01');
    const withFile = { ...held, media: held.media.map((m) => ({ ...m, stored: file })) };
    const sighting = { ...held, last_seen_date: '2026-06-30', media: [...held.media, { type: 'image' as const, url: 'https://cdn.test/new.jpg', width: 10, height: 10, duration_seconds: null }] };
    const seen = cluster({ stored: [stored(withFile)] });
    expect(await writer().apply([sighting])).toMatchObject({ replaced: 1 });
    const [indexed] = seen.bulks.filter(isAdBulk).flatMap((call) => call.documents) as { media: unknown[] }[];
    expect(indexed?.media).toEqual([{ ...held.media[0], stored: file }, sighting.media[1]]);
    mock.clearAll();
    const again = cluster({ stored: [stored({ ...sighting, media: indexed?.media as AdRecord['media'] })] });
    expect(await writer().apply([sighting])).toMatchObject({ unchanged: 1, replaced: 0 });
    expect(again.bulks.filter(isAdBulk)).toEqual([]);
  });

  it('an identical re-delivery indexes no ad and refreshes no ad index', async () => {
    const seen = cluster({ stored: [stored(record('ad_01'))], withAds: ['adv_acme', 'cr_1', 'example.com'] });
    const result = await writer().apply([record('ad_01')]);
    expect(result).toEqual({ added: 0, replaced: 0, unchanged: 1, rejected: [] });
    expect(seen.bulks.filter(isAdBulk)).toEqual([]);
    expect(seen.refreshed).not.toContain('adi-ads');
  });

  it('requests and writes only the touched entities, deletes those left without ads, visible when written', async () => {
    const before = record('ad_04');
    const after = record('ad_04', { advertiser_id: 'adv_loan', advertiser_name: 'Fast Loan Inc', last_seen_date: '2026-01-20' });
    // adv_other had only this ad in the double's view; adv_loan gains it.
    const seen = cluster({ stored: [stored(before)], withAds: ['adv_loan', 'cr_4', 'badexample.com'] });
    const result = await writer().apply([after]);
    expect(result).toEqual({ added: 0, replaced: 1, unchanged: 0, rejected: [] });

    const filters = seen.rollups
      .filter((body) => {
        const entities = (body['aggs'] as { entities?: { composite: { after?: unknown } } }).entities;
        return entities && !entities.composite.after;
      })
      .map((body) => (body['query'] as { bool: { filter: { terms: Record<string, string[]> }[] } }).bool.filter[0]?.terms);
    expect(filters).toEqual([
      { advertiser_id: ['adv_loan', 'adv_other'] },
      { creative_id: ['cr_4'] },
      { registrable_domain: ['badexample.com'] },
    ]);
    const entityBulks = seen.bulks.filter((call) => !isAdBulk(call));
    expect(entityBulks.map(targets)).toEqual([
      ['index adi-advertisers/adv_loan', 'delete adi-advertisers/adv_other'],
      ['index adi-creatives/cr_4'],
      ['index adi-domains/badexample.com'],
    ]);
    const versions = entityBulks.flatMap((call) => call.actions.map((a) => Object.values(a)[0]));
    expect(new Set(versions.map((meta) => meta?.version_type))).toEqual(new Set(['external_gte']));
    expect(entityBulks[0]?.documents[0]).toMatchObject({ id: 'adv_loan', ads_total: 1, record: { id: 'adv_loan' } });
    expect(entityBulks.map((call) => call.refresh)).toEqual(['wait_for', 'wait_for', 'wait_for']);
    expect(seen.refreshed).toEqual([]);
  });

  it('takes an entity write that lost to a newer computation (409) as done; any other refused entity write fails the batch', async () => {
    cluster({ withAds: ['adv_acme'], bulkAnswer: (call) => call.actions.map((a) => (a['index']?._index === 'adi-advertisers' ? 409 : 201)) });
    await expect(writer().apply([record('ad_01')])).resolves.toMatchObject({ added: 1 });
    mock.clearAll();
    cluster({
      withAds: ['adv_acme'],
      bulkAnswer: (call) => call.actions.map((a) => (a['index']?._index === 'adi-advertisers' ? { status: 400, type: 'strict_dynamic_mapping_exception', reason: 'x' } : 201)),
    });
    await expect(writer().apply([record('ad_01')])).rejects.toMatchObject({ code: 'internal' });
  });

  it('checks the entity aliases once, and again after an entity write failed for want of its alias', async () => {
    let aliasGone = false;
    const seen = cluster({
      withAds: ['adv_acme'],
      bulkAnswer: (call) =>
        call.actions.map((a) =>
          aliasGone && a['index']?._index === 'adi-advertisers' ? { status: 404, type: 'index_not_found_exception', reason: 'no such index [adi-advertisers]' } : 201,
        ),
    });
    const live = writer();
    await live.apply([record('ad_01')]);
    await live.apply([record('ad_09')]);
    // The five entity aliases and the feed alias, once.
    expect(seen.aliasLookups).toBe(6);
    aliasGone = true;
    await expect(live.apply([record('ad_10')])).rejects.toMatchObject({ code: 'internal' });
    aliasGone = false;
    await live.apply([record('ad_10')]);
    expect(seen.aliasLookups).toBe(11);
  });

  it("puts the served generation's ad template once per writer, so a month it creates after a mapping change gets the new mapping", async () => {
    const seen = cluster({ withAds: ['adv_acme'] });
    const live = writer();
    await live.apply([record('ad_01')]);
    await live.apply([record('ad_09')]);
    // The position's feed index here is `adi-feed` (the layout before generations): its single ad template, with the read alias.
    expect(seen.templates.filter((t) => String((t as { path: string }).path).startsWith('/_index_template/adi-ads'))).toEqual([
      { path: '/_index_template/adi-ads', aliases: { 'adi-ads': {} } },
    ]);
  });

  it('splits a large batch into bulk requests of at most 1,000 actions', async () => {
    const seen = cluster({ withAds: ['adv_acme'] });
    const batch = Array.from({ length: 1_001 }, (_, i) => record('ad_01', { id: `n${i}` }));
    await expect(writer().apply(batch)).resolves.toMatchObject({ added: 1_001 });
    expect(seen.bulks.filter(isAdBulk).map((call) => call.actions.length)).toEqual([1_000, 1]);
  });

  it('serves generation 0 (entity kinds and the feed index behind their aliases) when no offline load made one', async () => {
    const seen = cluster({ aliases: false });
    await writer().apply([]);
    expect(seen.created).toEqual([
      ...['advertisers', 'webmasters', 'creatives', 'domains', 'apps'].map((kind) => ({ path: `/adi-${kind}-0`, body: { aliases: { [`adi-${kind}`]: {} } } })),
      { path: '/adi-feed-0', body: { settings: { number_of_shards: 1, number_of_replicas: 1 }, mappings: { enabled: false }, aliases: { 'adi-feed': {} } } },
    ]);
    // Generation 0's months are created by the live path's writes, with the read alias.
    expect(seen.templates).toContainEqual({ path: '/_index_template/adi-ads-0', aliases: { 'adi-ads': {} } });
  });
});
