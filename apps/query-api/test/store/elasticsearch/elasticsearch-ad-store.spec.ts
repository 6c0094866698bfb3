/**
 * The Elasticsearch adapter end to end at the transport level, through @elastic/elasticsearch-mock:
 * requests leave the real client, canned cluster answers come back and are mapped to the port's
 * types and typed errors. No Elasticsearch server can run on the build machines; the shared contract
 * suite runs against a real cluster in `elasticsearch.contract.spec.ts` when ES_URL is set.
 */
import { Client, errors } from '@elastic/elasticsearch';
import { ServiceError } from '@adintel/contracts';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { ElasticsearchAdStore } from '../../../src/store/elasticsearch/elasticsearch-ad-store';
import { ElasticsearchAdStoreWriter } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import { elasticsearchSettingsFrom } from '../../../src/store/elasticsearch/es-client';
import { createdIndex, mockFeedPosition, responseError, rollupBucket, searchBody } from './es-mock';
import { validatingMock } from './spec/validating-mock';

/** Every request the client sends is checked against the Elasticsearch specification and rules (spec/). */
const { mock, violations } = validatingMock();
afterEach(() => {
  expect(violations.splice(0)).toEqual([]);
});
const client = new Client({ node: 'http://es.test:9200', Connection: mock.getConnection(), maxRetries: 0 });
const store = new ElasticsearchAdStore(client, 'adi');

const adSource = (id: string, overrides: Partial<AdRecord> = {}) => ({
  id,
  title: `Ad ${id}`,
  body: 'Body',
  landing_domain: 'shop.example.com',
  landing_url: 'https://shop.example.com/x',
  destination_type: 'online_shop',
  platform_name: 'facebook',
  advertiser_id: 'adv-1',
  webmaster_id: null,
  status_today: 'active',
  days_active: 3,
  first_seen_date: '2026-03-01',
  last_seen_date: '2026-03-04',
  countries: ['US'],
  languages: ['en'],
  categories: ['finance_and_banking'],
  creative_format: 'image',
  media_count: 1,
  creative_id: 'cr-1',
  app_id: null,
  impressions: 100,
  popularity: 0.5,
  activity_days_amount: 3,
  ...overrides,
});

afterEach(() => mock.clearAll());

describe('ElasticsearchAdStore over the mock transport', () => {
  it('searches the read alias and maps hits to ads with the last sort key', async () => {
    const bodies: unknown[] = [];
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, (params) => {
      bodies.push(params.body);
      return searchBody({ total: { value: 2, relation: 'eq' }, hits: [{ _source: adSource('a2') }, { _source: adSource('a1') }] });
    });
    const page = await store.searchAds({ filter: { landingDomain: 'example.com' }, sort: 'date', order: 'desc', limit: 1 });
    expect(page.rows).toEqual([adSource('a2')]);
    expect(page).toMatchObject({ hasMore: true, lastKey: { value: '2026-03-01', id: 'a2' } });
    expect(bodies[0]).toMatchObject({ query: { bool: { filter: [{ term: { landing_domain_suffixes: 'example.com' } }] } }, size: 2 });
  });

  it('counts with track_total_hits and reports gte as an estimate', async () => {
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, (params) => {
      expect(params.body).toMatchObject({ size: 0, track_total_hits: 10_001 });
      return searchBody({ total: { value: 10_001, relation: 'gte' } });
    });
    await expect(store.countAds({}, 10_000)).resolves.toEqual({ total: 10_000, estimated: true });
  });

  it('gets one ad with media and the merged advertiser\'s platforms', async () => {
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () =>
      searchBody({
        hits: [
          {
            _source: {
              ...adSource('a1', { webmaster_id: 'w1' }),
              media: [{ type: 'image', url: 'https://cdn/x.png', width: 10, height: 10, duration_seconds: null }],
              advertiser_name: 'Acme',
              webmaster_name: 'Leads',
            },
          },
        ],
      }),
    );
    mock.add({ method: 'POST', path: '/adi-advertisers/_search' }, () =>
      searchBody({ hits: [{ _index: 'adi-advertisers-1', _source: { id: 'adv-1', record: { id: 'adv-1', platforms: ['facebook', 'tiktok'] } } }] }),
    );
    const ad = await store.getAd('a1');
    expect(ad).toMatchObject({
      id: 'a1',
      media: [{ url: 'https://cdn/x.png' }],
      advertiser: { id: 'adv-1', name: 'Acme', platforms: ['facebook', 'tiktok'] },
      webmaster: { id: 'w1', name: 'Leads' },
    });
  });

  it('answers null for an unknown ad and an unknown webmaster', async () => {
    mock.add({ method: 'POST', path: ['/adi-ads/_search', '/adi-webmasters/_search'] }, () => searchBody());
    await expect(store.getAd('nope')).resolves.toBeNull();
    await expect(store.webmasterAdvertisers('nope', { limit: 5 })).resolves.toBeNull();
  });

  it('pages webmasters by name from the rollup index', async () => {
    const row = (id: string, ads_total: number) => ({
      _source: {
        id,
        ads_total,
        record: {
          id,
          name: `WM ${id}`,
          ads_total,
          active_ads: 1,
          advertisers: 1,
          countries: [{ country: 'BR', ads: ads_total, share: 1 }],
          dominant_country: 'BR',
          relevance: 1,
          categories: [{ category: 'x', ads: 1, share: 1 }],
          landing_domains: ['x.com'],
        },
      },
    });
    mock.add({ method: 'POST', path: '/adi-webmasters/_search' }, (params) => {
      expect(params.body).toMatchObject({ query: { prefix: { name_suffixes: { value: 'wm' } } }, size: 2 });
      return searchBody({ hits: [row('w1', 9), row('w2', 5)].map((hit) => ({ ...hit, _index: 'adi-webmasters-1' })) });
    });
    const page = await store.searchWebmasters({ q: 'wm', limit: 1 });
    expect(page.hasMore).toBe(true);
    expect(page.lastKey).toEqual({ value: 9, id: 'w1' });
    // The list row carries the row fields only, not the detail of the full record.
    expect(page.rows[0]).not.toHaveProperty('categories');
    expect(page.rows[0]).toMatchObject({ id: 'w1', dominant_country: 'BR', relevance: 1 });
  });

  it('ranks scaling creatives across composite pages', async () => {
    let calls = 0;
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, (params) => {
      const body = params.body as { aggs: Record<string, { composite?: { after?: unknown } }> };
      calls++;
      if (body.aggs['rows']) {
        const first = searchBody({ hits: [{ _source: { id: 'ad-c2', creative_title: 'Two', creative_format: 'video' } }] })['hits'];
        return searchBody({
          aggregations: {
            rows: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 0,
              buckets: [{ key: 'c2', doc_count: 4, lead: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'adv-2', doc_count: 4 }] }, first: { hits: first } }],
            },
          },
        });
      }
      const after = body.aggs['creatives']?.composite?.after;
      const bucket = after
        ? { key: { creative: 'c2' }, doc_count: 4, current: { doc_count: 4 }, previous: { doc_count: 0 } }
        : { key: { creative: 'c1' }, doc_count: 5, current: { doc_count: 3 }, previous: { doc_count: 2 } };
      return searchBody({
        aggregations: {
          creatives: { after_key: bucket.key, buckets: after === undefined || (after as { creative: string }).creative === 'c1' ? [bucket] : [] },
          ...(body.aggs['in_window'] ? { in_window: { doc_count: 7 } } : {}),
        },
      });
    });
    const result = await store.trends({
      dimension: 'scaling-creatives',
      filter: {},
      window: { from: '2026-03-04', to: '2026-03-06' },
      previous: { from: '2026-03-01', to: '2026-03-03' },
      limit: 1,
    });
    expect(result).toEqual({
      totalAds: 7,
      rows: [{ key: 'c2', label: 'Two', ads: 4, previousAds: 0, detail: { creative_format: 'video', advertiser_id: 'adv-2' } }],
    });
    expect(calls).toBe(4);
  });

  it('maps an unreachable cluster to unavailable', async () => {
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () => new errors.ConnectionError('connect ECONNREFUSED'));
    await expect(store.countAds({}, 10)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('maps a slow cluster to timeout', async () => {
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () => new errors.TimeoutError('Request timed out'));
    const failure = store.catalog();
    await expect(failure).rejects.toBeInstanceOf(ServiceError);
    await expect(failure).rejects.toMatchObject({ code: 'timeout' });
  });

  it('maps cluster answers: 503 unavailable, 504 timeout, 400 internal', async () => {
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () => responseError(503, 'cluster_block_exception'));
    await expect(store.breakdown({}, 'country', 5)).rejects.toMatchObject({ code: 'unavailable' });
    mock.clearAll();
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () => responseError(504, 'gateway_timeout'));
    await expect(store.breakdown({}, 'country', 5)).rejects.toMatchObject({ code: 'timeout' });
    mock.clearAll();
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () => responseError(400, 'parsing_exception'));
    await expect(store.breakdown({}, 'country', 5)).rejects.toMatchObject({ code: 'internal' });
  });

  it('pings the cluster for readiness', async () => {
    mock.add({ method: 'HEAD', path: '/' }, () => ({}));
    await expect(store.ping()).resolves.toBeUndefined();
    mock.clearAll();
    mock.add({ method: 'HEAD', path: '/' }, () => new errors.ConnectionError('down'));
    await expect(store.ping()).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('ElasticsearchAdStoreWriter over the mock transport', () => {
  const record = (id: string, first_seen_date: string): AdRecord =>
    ({
      ...adSource(id, { first_seen_date }),
      media: [],
      registrable_domain: 'example.com',
      advertiser_name: 'Acme',
      advertiser_account_id: 'acct-1',
      webmaster_name: null,
      creative_title: 'Ad',
      app: null,
    }) as AdRecord;

  it('installs the templates, routes each ad to its month and reports every refused item', async () => {
    const templates: string[] = [];
    mock.add({ method: 'PUT', path: '/_index_template/:name' }, (params) => {
      templates.push(String(params.path));
      return { acknowledged: true };
    });
    const mappings: string[] = [];
    mock.add({ method: 'PUT', path: '/:index/_mapping' }, (params) => {
      mappings.push(String(params.path));
      return { acknowledged: true };
    });
    const actions: { index: { _index: string; _id: string } }[] = [];
    mock.add({ method: 'POST', path: '/_bulk' }, (params) => {
      const lines = params.body as unknown as Record<string, unknown>[];
      const items = [];
      for (let i = 0; i < lines.length; i += 2) {
        const action = lines[i] as { index: { _index: string; _id: string } };
        actions.push(action);
        items.push(
          action.index._id === 'bad'
            ? { index: { _index: action.index._index, _id: 'bad', status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse field [impressions]' } } }
            : { index: { _index: action.index._index, _id: action.index._id, status: 201 } },
        );
      }
      return { took: 1, errors: items.some((i) => i.index.status >= 300), items };
    });
    const writer = new ElasticsearchAdStoreWriter(client, 'adi');
    const result = await writer.write([
      record('a1', '2026-02-28'),
      record('a2', '2026-03-01'),
      record('bad', '2026-03-02'),
      record('undated', 'March'),
    ]);
    expect(templates).toEqual([
      '/_index_template/adi-ads',
      '/_index_template/adi-advertisers',
      '/_index_template/adi-webmasters',
      '/_index_template/adi-creatives',
      '/_index_template/adi-domains',
      '/_index_template/adi-apps',
    ]);
    // Templates apply at creation only: the mappings go to every index that exists already.
    expect(mappings).toEqual(['/adi-ads-*/_mapping', ...['advertisers', 'webmasters', 'creatives', 'domains', 'apps'].map((k) => `/adi-${k}-*/_mapping`)]);
    expect(actions.map((a) => a.index)).toEqual([
      { _index: 'adi-ads-2026.02', _id: 'a1' },
      { _index: 'adi-ads-2026.03', _id: 'a2' },
      { _index: 'adi-ads-2026.03', _id: 'bad' },
    ]);
    expect(result.written).toBe(2);
    expect(result.rejected).toEqual([
      { line: 0, id: 'undated', reason: 'first_seen_date must be YYYY-MM-DD' },
      {
        line: 0,
        id: 'bad',
        reason: 'Elasticsearch refused the ad (400) mapper_parsing_exception: failed to parse field [impressions]',
      },
    ]);
  });

  it('stops the offline load as unavailable when items stay throttled (429), instead of reporting them as rejected rows', async () => {
    mock.add({ method: 'PUT', path: '/_index_template/:name' }, () => ({ acknowledged: true }));
    mock.add({ method: 'PUT', path: '/:index/_mapping' }, () => ({ acknowledged: true }));
    let rounds = 0;
    mock.add({ method: 'POST', path: '/_bulk' }, (params) => {
      rounds++;
      const lines = params.body as unknown as { index?: { _index: string; _id: string } }[];
      const items = lines.filter((l) => l.index).map((l) => ({ index: { ...l.index, status: 429, error: { type: 'es_rejected_execution_exception', reason: 'queue full' } } }));
      return { took: 1, errors: true, items };
    });
    const writer = new ElasticsearchAdStoreWriter(client, 'adi', false, { offlineRetryWaitMs: 1 });
    await expect(writer.write([record('a1', '2026-02-28')])).rejects.toMatchObject({ code: 'unavailable' });
    expect(rounds).toBe(7); // the first round and 6 retries
  });

  it('finish() rebuilds each rollup into a new generation, swaps its alias, and starts the change feed of a new store', async () => {
    const position = mockFeedPosition(mock);
    mock.add({ method: 'PUT', path: '/_index_template/:name' }, () => ({ acknowledged: true }));
    mock.add({ method: 'PUT', path: '/:index/_mapping' }, () => ({ acknowledged: true }));
    mock.add({ method: ['GET', 'POST'], path: '/:index/_refresh' }, () => ({ _shards: { total: 1, successful: 1, failed: 0 } }));
    const created: string[] = [];
    mock.add({ method: 'PUT', path: '/:index' }, (params) => {
      created.push(String(params.path).slice(1));
      return createdIndex(String(params.path).slice(1));
    });
    mock.add({ method: 'POST', path: '/adi-ads/_pit' }, () => ({ id: 'pit-1', _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } }));
    const closed: unknown[] = [];
    mock.add({ method: 'DELETE', path: '/_pit' }, (params) => {
      closed.push(params.body);
      return { succeeded: true, num_freed: 1 };
    });
    const onPit: unknown[] = [];
    mock.add({ method: 'POST', path: ['/adi-ads/_search', '/_search'] }, (params) => {
      if (String(params.path) === '/_search') onPit.push((params.body as { pit?: unknown }).pit);
      const aggs = (params.body as { aggs: { day?: unknown; entities?: { composite: { after?: unknown } } } }).aggs;
      // The data's day (the max aggregation's shape in the specification's MaxAggregate).
      if (aggs.day) return searchBody({ aggregations: { day: { value: Date.parse('2026-01-31'), value_as_string: '2026-01-31' } } });
      const buckets = aggs.entities?.composite.after ? [] : [rollupBucket(params.body, 'e1', 2)];
      return searchBody({ aggregations: { entities: { after_key: { key: 'e1' }, buckets } } });
    });
    const indexed: unknown[] = [];
    mock.add({ method: 'POST', path: '/_bulk' }, (params) => {
      const lines = params.body as unknown as { index?: { _index: string; _id: string } }[];
      const items = lines.filter((l) => l.index).map((l) => ({ index: { ...l.index, status: 201 } }));
      indexed.push(...lines.filter((l) => !l.index));
      return { took: 1, errors: false, items };
    });
    // First generation of adi-advertisers: no alias yet (404); the others had an earlier generation.
    mock.add({ method: 'GET', path: '/_alias/:name' }, (params) =>
      String(params.path).endsWith('adi-advertisers')
        ? responseError(404, 'aliases_not_found_exception')
        : { [`${String(params.path).split('/').pop()}-20250101000000000`]: { aliases: {} } },
    );
    const swaps: unknown[] = [];
    mock.add({ method: 'POST', path: '/_aliases' }, (params) => {
      swaps.push(params.body);
      return { acknowledged: true };
    });

    await new ElasticsearchAdStoreWriter(client, 'adi').finish();

    expect(created.map((name) => name.replace(/\d+$/, 'N'))).toEqual([
      'adi-advertisers-N',
      'adi-webmasters-N',
      'adi-creatives-N',
      'adi-domains-N',
      'adi-apps-N',
      'adi-feed',
    ]);
    // R11: every rollup page of every kind read the same point in time, closed at the end.
    expect(onPit).toHaveLength(10);
    expect(new Set(onPit.map((pit) => JSON.stringify(pit)))).toEqual(new Set([JSON.stringify({ id: 'pit-1', keep_alive: '5m' })]));
    expect(closed).toEqual([{ id: 'pit-1' }]);
    expect(position.writes).toEqual([{ store: expect.stringMatching(/^load-\d+$/), seq: 0, from: 0, day: '2026-01-31', marks: [], lease: null }]);
    expect(indexed).toHaveLength(5);
    expect(indexed[0]).toMatchObject({ id: 'e1', ads_total: 2, record: { id: 'e1', ads_total: 2 } });
    expect(swaps[0]).toEqual({ actions: [{ add: { index: created[0], alias: 'adi-advertisers' } }] });
    expect(swaps[1]).toEqual({
      actions: [
        { add: { index: created[1], alias: 'adi-webmasters' } },
        { remove_index: { index: 'adi-webmasters-20250101000000000' } },
      ],
    });
  });

  it('counts the stored ads on the read alias, an empty store included', async () => {
    mock.add({ method: ['POST', 'GET'], path: '/adi-ads/_count' }, () => ({ count: 0, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } }));
    await expect(new ElasticsearchAdStoreWriter(client, 'adi').size()).resolves.toBe(0);
  });
});

describe('settings', () => {
  it('reads ES_URL, ES_REQUEST_TIMEOUT_MS, ES_INDEX_PREFIX, ES_ADS_SHARDS and ES_REPLICAS', () => {
    expect(
      elasticsearchSettingsFrom({ ES_URL: 'http://es:9200', ES_REQUEST_TIMEOUT_MS: 2500, ES_INDEX_PREFIX: 'x', ES_ADS_SHARDS: '12', ES_REPLICAS: '0' }),
    ).toEqual({
      url: 'http://es:9200',
      requestTimeoutMs: 2500,
      indexPrefix: 'x',
      layout: { adsShards: 12, replicas: 0 },
    });
    expect(elasticsearchSettingsFrom({ ES_URL: 'http://es:9200' })).toEqual({
      url: 'http://es:9200',
      requestTimeoutMs: 5000,
      indexPrefix: 'adintel',
      layout: { adsShards: 1, replicas: 1 },
    });
    expect(() => elasticsearchSettingsFrom({})).toThrow(/ES_URL/);
    expect(() => elasticsearchSettingsFrom({ ES_URL: 'http://es', ES_REQUEST_TIMEOUT_MS: '-1' })).toThrow(/ES_REQUEST_TIMEOUT_MS/);
    expect(() => elasticsearchSettingsFrom({ ES_URL: 'http://es', ES_ADS_SHARDS: '0' })).toThrow(/ES_ADS_SHARDS/);
  });
});
