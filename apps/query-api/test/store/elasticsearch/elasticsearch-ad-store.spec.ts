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

  /** What the store holds for a load's start (none: an empty cluster), and the templates it lists. */
  const storeHolds = (indices: Record<string, { aliases: Record<string, object> }> = {}, templates: string[] = []) => {
    mock.add({ method: 'GET', path: '/:index' }, () => indices);
    mock.add({ method: 'GET', path: '/_index_template/:name' }, () => ({
      index_templates: templates.map((name) => ({ name, index_template: { index_patterns: [`${name}-*`], composed_of: [] } })),
    }));
  };
  const GENERATION = /\d{17}/;
  const generic = (text: string) => text.replace(new RegExp(GENERATION, 'g'), '<gen>');

  it('installs the templates, routes each ad to its month of the new generation and reports every refused item', async () => {
    storeHolds();
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
    const writer = new ElasticsearchAdStoreWriter(client, 'adi', false, { log: () => undefined });
    const result = await writer.write([
      record('a1', '2026-02-28'),
      record('a2', '2026-03-01'),
      record('bad', '2026-03-02'),
      record('undated', 'March'),
    ]);
    expect(templates.map(generic)).toEqual([
      '/_index_template/adi-advertisers',
      '/_index_template/adi-webmasters',
      '/_index_template/adi-creatives',
      '/_index_template/adi-domains',
      '/_index_template/adi-apps',
      // The load's generation: its months stay out of the read alias until the switch.
      '/_index_template/adi-ads-<gen>',
    ]);
    // Templates apply at creation only: the mappings go to every index that exists already.
    expect(mappings).toEqual(['/adi-ads-*/_mapping', ...['advertisers', 'webmasters', 'creatives', 'domains', 'apps'].map((k) => `/adi-${k}-*/_mapping`)]);
    expect(actions.map((a) => ({ ...a.index, _index: generic(a.index._index) }))).toEqual([
      { _index: 'adi-ads-<gen>-2026.02', _id: 'a1' },
      { _index: 'adi-ads-<gen>-2026.03', _id: 'a2' },
      { _index: 'adi-ads-<gen>-2026.03', _id: 'bad' },
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
    storeHolds();
    mock.add({ method: 'PUT', path: '/_index_template/:name' }, () => ({ acknowledged: true }));
    mock.add({ method: 'PUT', path: '/:index/_mapping' }, () => ({ acknowledged: true }));
    let rounds = 0;
    mock.add({ method: 'POST', path: '/_bulk' }, (params) => {
      rounds++;
      const lines = params.body as unknown as { index?: { _index: string; _id: string } }[];
      const items = lines.filter((l) => l.index).map((l) => ({ index: { ...l.index, status: 429, error: { type: 'es_rejected_execution_exception', reason: 'queue full' } } }));
      return { took: 1, errors: true, items };
    });
    const writer = new ElasticsearchAdStoreWriter(client, 'adi', false, { offlineRetryWaitMs: 1, log: () => undefined });
    await expect(writer.write([record('a1', '2026-02-28')])).rejects.toMatchObject({ code: 'unavailable' });
    expect(rounds).toBe(7); // the first round and 6 retries
  });

  it('a load copies the served ads into a new generation, builds its rollups and feed there, switches every alias in one request, then deletes the old generation', async () => {
    const OLD = '20250101000000000';
    const STOPPED = '20260101000000000';
    // Served: the old generation's month, rollups and feed (the advertisers of the layout before generations: a
    // concrete feed index); left by a stopped load: a month and its template.
    storeHolds(
      {
        [`adi-ads-${OLD}-2026.01`]: { aliases: { 'adi-ads': {} } },
        ...Object.fromEntries(['advertisers', 'webmasters', 'creatives', 'domains', 'apps'].map((kind) => [`adi-${kind}-${OLD}`, { aliases: { [`adi-${kind}`]: {} } }])),
        'adi-feed': { aliases: {} },
        [`adi-ads-${STOPPED}-2026.02`]: { aliases: {} },
      },
      [`adi-ads-${STOPPED}`, `adi-ads-${OLD}`],
    );
    const position = mockFeedPosition(mock);
    mock.add({ method: 'PUT', path: '/_index_template/:name' }, () => ({ acknowledged: true }));
    mock.add({ method: 'PUT', path: '/:index/_mapping' }, () => ({ acknowledged: true }));
    mock.add({ method: ['GET', 'POST'], path: '/:index/_refresh' }, () => ({ _shards: { total: 1, successful: 1, failed: 0 } }));
    const copies: unknown[] = [];
    mock.add({ method: 'POST', path: '/_reindex' }, (params) => {
      copies.push(params.body);
      return { task: 'node-1:7' };
    });
    let looks = 0;
    mock.add({ method: 'GET', path: '/_tasks/:task' }, () => ({
      completed: ++looks > 1,
      task: { node: 'node-1', id: 7, type: 'transport', action: 'indices:data/write/reindex', start_time_in_millis: 0, running_time_in_nanos: 1, cancellable: true, headers: {} },
      ...(looks > 1 ? { response: { total: 3, created: 3, failures: [] } } : {}),
    }));
    const created: string[] = [];
    mock.add({ method: 'PUT', path: '/:index' }, (params) => {
      created.push(decodeURIComponent(String(params.path).slice(1)));
      return createdIndex(String(params.path).slice(1));
    });
    const pitOn: string[] = [];
    mock.add({ method: 'POST', path: '/:index/_pit' }, (params) => {
      pitOn.push(decodeURIComponent(String(params.path).split('/')[1] ?? ''));
      return { id: 'pit-1', _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } };
    });
    const closed: unknown[] = [];
    mock.add({ method: 'DELETE', path: '/_pit' }, (params) => {
      closed.push(params.body);
      return { succeeded: true, num_freed: 1 };
    });
    const onPit: unknown[] = [];
    mock.add({ method: 'POST', path: ['/:index/_search', '/_search'] }, (params) => {
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
    const swaps: unknown[] = [];
    mock.add({ method: 'POST', path: '/_aliases' }, (params) => {
      swaps.push(params.body);
      return { acknowledged: true };
    });
    const deleted: string[] = [];
    // `/*`: a list of index names is longer than a path parameter of the mock's router may be.
    mock.add({ method: 'DELETE', path: ['/*', '/_index_template/:name'] }, (params) => {
      deleted.push(decodeURIComponent(String(params.path)));
      return { acknowledged: true };
    });
    const logs: Record<string, unknown>[] = [];

    await new ElasticsearchAdStoreWriter(client, 'adi', false, { log: (fields) => logs.push(fields), taskPollMs: 1 }).finish();

    const generation = created[0]?.match(GENERATION)?.[0] ?? 'none';
    expect(generation > STOPPED).toBe(true);
    // The stopped load's generation, named, then deleted before anything else was written.
    expect(logs[0]).toMatchObject({ event: 'unserved_generation_removed', generation: STOPPED, served_generation: OLD, left_by: 'a load stopped before its switch', indices: [`adi-ads-${STOPPED}-2026.02`], templates: [`adi-ads-${STOPPED}`] });
    expect(deleted.slice(0, 2)).toEqual([`/adi-ads-${STOPPED}-2026.02`, `/_index_template/adi-ads-${STOPPED}`]);
    // An ingest adds to the store: the served month is copied (without the feed fields) into the same month of the new generation.
    expect(copies).toEqual([
      { source: { index: `adi-ads-${OLD}-2026.01`, _source: { excludes: ['change_seq', 'changed_at', 'feed_since', 'feed'] } }, dest: { index: `adi-ads-${generation}-2026.01`, op_type: 'create' }, conflicts: 'proceed' },
    ]);
    expect(looks).toBe(2);
    expect(created).toEqual([...['advertisers', 'webmasters', 'creatives', 'domains', 'apps'].map((kind) => `adi-${kind}-${generation}`), `adi-feed-${generation}`]);
    // R11: every rollup page of every kind read the same point in time of the new generation's ads, closed at the end.
    expect(pitOn).toEqual([`adi-ads-${generation}-*`]);
    expect(onPit).toHaveLength(10);
    expect(new Set(onPit.map((pit) => JSON.stringify(pit)))).toEqual(new Set([JSON.stringify({ id: 'pit-1', keep_alive: '5m' })]));
    expect(closed).toEqual([{ id: 'pit-1' }]);
    expect(position.writes[0]).toEqual({ store: `load-${generation}`, seq: 0, from: 0, day: '2026-01-31', marks: [], lease: null });
    expect(indexed).toHaveLength(5);
    expect(indexed[0]).toMatchObject({ id: 'e1', ads_total: 2, record: { id: 'e1', ads_total: 2 } });
    // One request moves every alias; the concrete feed index of the layout before generations goes in the same step.
    expect(swaps).toHaveLength(1);
    const kinds = ['advertisers', 'webmasters', 'creatives', 'domains', 'apps'];
    expect(swaps[0]).toEqual({
      actions: expect.arrayContaining([
        { remove: { index: `adi-ads-${OLD}-2026.01`, alias: 'adi-ads' } },
        ...kinds.map((kind) => ({ remove: { index: `adi-${kind}-${OLD}`, alias: `adi-${kind}` } })),
        { remove_index: { index: 'adi-feed' } },
        ...kinds.map((kind) => ({ add: { index: `adi-${kind}-${generation}`, alias: `adi-${kind}` } })),
        { add: { index: `adi-feed-${generation}`, alias: 'adi-feed' } },
      ]),
    });
    // Then the replaced generation: its indices, its template, and the single ad template of the layout before generations.
    expect(deleted.slice(2)).toEqual([
      `/adi-ads-${OLD}-2026.01,${kinds.map((kind) => `adi-${kind}-${OLD}`).join(',')}`,
      `/_index_template/adi-ads-${OLD}`,
      '/_index_template/adi-ads',
    ]);
    expect(logs.map((line) => line['event'])).toEqual(['unserved_generation_removed', 'load_started', 'load_switched']);
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
