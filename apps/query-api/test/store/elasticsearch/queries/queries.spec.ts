/**
 * The Elasticsearch engine's query builders, tested by their output. No Elasticsearch server can run
 * on the build machines: these tests pin the request bodies (and the parsing of responses) as pure
 * functions; `elasticsearch.contract.spec.ts` runs the shared semantics suite against a real cluster
 * whenever ES_URL is set.
 */
import type { estypes } from '@elastic/elasticsearch';
import { AD_SORTS, BREAKDOWN_FIELDS } from '@adintel/contracts';
import type { AdSearchQuery, TrendQuery } from '../../../../src/store/ad-store.port';
import { adFilterQuery, trendFilterQuery } from '../../../../src/store/elasticsearch/queries/ad-filter.query';
import {
  AD_SORT_FIELD,
  adsPageFrom,
  breakdownFrom,
  breakdownRequest,
  countAdsRequest,
  countFrom,
  searchAdsRequest,
} from '../../../../src/store/elasticsearch/queries/ads.query';
import {
  byGrowth,
  daysOf,
  previousCountsRequest,
  rankedTrendFrom,
  rankedTrendRequest,
  scalingPageFrom,
  scalingPageRequest,
  timelineFrom,
  timelineRequest,
} from '../../../../src/store/elasticsearch/queries/trends.query';
import { activityFrom, catalogFrom, entityPageFrom, nameSearchRequest, webmasterAdvertisersRequest } from '../../../../src/store/elasticsearch/queries/entities.query';
import { entityDocumentFrom, type RollupBucket } from '../../../../src/store/elasticsearch/queries/rollups.query';
import { landingDomainSuffixes } from '../../../../src/store/elasticsearch/domain-suffixes';
import { nameSuffixes } from '../../../../src/store/text';
import { ENTITY_KINDS, indexNames } from '../../../../src/store/elasticsearch/index-names';
import { copyMonthRequest, monthOf, servedIndices, switchRequest, unservedGenerations } from '../../../../src/store/elasticsearch/queries/generations.query';
import { adsTemplate, indexTemplates, putMappingRequests, TEMPLATE_VERSION } from '../../../../src/store/elasticsearch/mappings';

const ADS = 'test-ads';
const response = (partial: Record<string, unknown>) =>
  ({ took: 1, timed_out: false, _shards: { total: 1, successful: 1, failed: 0 }, hits: { hits: [] }, ...partial }) as unknown as estypes.SearchResponse<never>;
const filtersOf = (query: estypes.QueryDslQueryContainer | undefined) => query?.bool?.filter as estypes.QueryDslQueryContainer[];

describe('ad filters', () => {
  it('matches everything when no filter is given', () => {
    expect(adFilterQuery({})).toEqual({ match_all: {} });
  });

  it('turns every /ads filter into one non-scoring clause', () => {
    const query = adFilterQuery({
      words: ['promo', 'sale'],
      country: 'US',
      platforms: ['facebook', 'tiktok'],
      categories: ['finance_and_banking'],
      status: 'active',
      advertiserId: 'adv-1',
      webmasterId: 'wm-1',
      landingDomain: 'example.com',
      appId: 'app-1',
      creativeId: 'cr-1',
      dateFrom: '2026-01-01',
      dateTo: '2026-01-31',
    });
    expect(filtersOf(query)).toEqual([
      { term: { search_text: 'promo' } },
      { term: { search_text: 'sale' } },
      { term: { countries: 'US' } },
      { terms: { platform_name: ['facebook', 'tiktok'] } },
      { terms: { categories: ['finance_and_banking'] } },
      { term: { status_today: 'active' } },
      { term: { advertiser_id: 'adv-1' } },
      { term: { webmaster_id: 'wm-1' } },
      { term: { landing_domain_suffixes: 'example.com' } },
      { term: { app_id: 'app-1' } },
      { term: { creative_id: 'cr-1' } },
      { range: { active_period: { gte: '2026-01-01', lte: '2026-01-31', relation: 'intersects' } } },
    ]);
  });

  it('keeps an open-ended date window open', () => {
    expect(filtersOf(adFilterQuery({ dateFrom: '2026-02-01' }))).toEqual([
      { range: { active_period: { gte: '2026-02-01', relation: 'intersects' } } },
    ]);
    expect(filtersOf(adFilterQuery({ dateTo: '2026-02-01' }))).toEqual([
      { range: { active_period: { lte: '2026-02-01', relation: 'intersects' } } },
    ]);
  });

  it('adds the trend filters to the window', () => {
    expect(filtersOf(trendFilterQuery({ country: 'DE', platform: 'tiktok', category: 'dating_and_relationships' }, { from: 'a', to: 'b' }))).toEqual([
      { range: { active_period: { gte: 'a', lte: 'b', relation: 'intersects' } } },
      { term: { countries: 'DE' } },
      { term: { platform_name: 'tiktok' } },
      { term: { categories: 'dating_and_relationships' } },
    ]);
  });
});

describe('landing domain suffixes', () => {
  it('lists the host and every parent, so one term finds the domain and all subdomains', () => {
    expect(landingDomainSuffixes('A.Shop.Example.co.uk.')).toEqual([
      'a.shop.example.co.uk',
      'shop.example.co.uk',
      'example.co.uk',
      'co.uk',
      'uk',
    ]);
  });

  it('never lists a look-alike', () => {
    expect(landingDomainSuffixes('badexample.com')).not.toContain('example.com');
    expect(landingDomainSuffixes('example.community')).not.toContain('example.com');
  });
});

describe('name suffixes', () => {
  it('gives every word-boundary suffix of the normalised names', () => {
    expect(nameSuffixes('Acme Sports, Ltd.', 'com.acme.sports', null)).toEqual([
      'acme sports ltd',
      'sports ltd',
      'ltd',
      'com acme sports',
      'acme sports',
      'sports',
    ]);
  });
});

describe('search_ads', () => {
  const base: AdSearchQuery = { filter: {}, sort: 'date', order: 'desc', limit: 20 };

  it.each(AD_SORTS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'sorts by %s %s with the id tiebreaker in the same direction and an explicit missing value',
    (sort, order) => {
      const request = searchAdsRequest(ADS, { ...base, sort, order });
      const field = AD_SORT_FIELD[sort];
      expect(request.sort).toEqual([
        // A date sorts as a long: its missing is `_last` (never a date string), as the index sort's.
        { [field]: { order, missing: sort === 'date' ? '_last' : 0 } },
        { id: { order } },
      ]);
      expect(request).toMatchObject({ index: ADS, size: 21, track_total_hits: false, ignore_unavailable: true });
      expect(request.search_after).toBeUndefined();
    },
  );

  it('maps the sorts to their fields', () => {
    expect(AD_SORT_FIELD).toEqual({
      date: 'first_seen_date',
      days_active: 'days_active',
      activity_days_amount: 'activity_days_amount',
      most_popular: 'popularity',
      impressions: 'impressions',
    });
  });

  it('resumes after a date key as epoch milliseconds plus the id', () => {
    const request = searchAdsRequest(ADS, { ...base, after: { value: '2026-03-02', id: 'ad-9' } });
    expect(request.search_after).toEqual([Date.UTC(2026, 2, 2), 'ad-9']);
  });

  it('resumes after a numeric key', () => {
    const request = searchAdsRequest(ADS, { ...base, sort: 'most_popular', after: { value: 0.25, id: 'ad-3' } });
    expect(request.search_after).toEqual([0.25, 'ad-3']);
  });

  it('refuses a key that does not fit the sort', () => {
    expect(() => searchAdsRequest(ADS, { ...base, after: { value: 'yesterday', id: 'x' } })).toThrow(/YYYY-MM-DD/);
    expect(() => searchAdsRequest(ADS, { ...base, sort: 'impressions', after: { value: 'many', id: 'x' } })).toThrow(/number/);
  });

  it('pages: one extra hit means more, the last returned row gives the key', () => {
    const hit = (id: string, popularity: number) => ({ _index: 'i', _id: id, _source: { id, popularity, webmaster_id: null } });
    const query = { ...base, sort: 'most_popular' as const, limit: 2 };
    const full = adsPageFrom(response({ hits: { hits: [hit('a', 3), hit('b', 2), hit('c', 1)] } }), query);
    expect(full.rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect(full).toMatchObject({ hasMore: true, lastKey: { value: 2, id: 'b' } });
    const last = adsPageFrom(response({ hits: { hits: [hit('d', 1)] } }), query);
    expect(last).toMatchObject({ hasMore: false, lastKey: { value: 1, id: 'd' } });
    expect(last.rows[0]).toMatchObject({ id: 'd', webmaster_id: null, app_id: null });
    expect(adsPageFrom(response({}), query)).toEqual({ rows: [], hasMore: false, lastKey: null });
  });
});

describe('count_ads', () => {
  it('counts exactly up to the bound (tracking one more to tell "exactly N" from "more")', () => {
    expect(countAdsRequest(ADS, { country: 'US' }, 10_000)).toMatchObject({
      size: 0,
      track_total_hits: 10_001,
      query: { bool: { filter: [{ term: { countries: 'US' } }] } },
    });
  });

  it('reads relation gte, or more than the bound, as an estimate', () => {
    const count = (value: number, relation: 'eq' | 'gte') => countFrom(response({ hits: { total: { value, relation }, hits: [] } }), 10_000);
    expect(count(10_001, 'gte')).toEqual({ total: 10_000, estimated: true });
    expect(count(10_001, 'eq')).toEqual({ total: 10_000, estimated: true });
    expect(count(10_000, 'eq')).toEqual({ total: 10_000, estimated: false });
    expect(count(42, 'eq')).toEqual({ total: 42, estimated: false });
  });
});

describe('breakdowns', () => {
  const fields = {
    country: 'countries',
    platform: 'platform_name',
    category: 'categories',
    language: 'languages',
    creative_format: 'creative_format',
    landing_domain: 'registrable_domain',
    status: 'status_today',
    destination_type: 'destination_type',
    advertiser: 'advertiser_id',
    webmaster: 'webmaster_id',
  };
  it.each(BREAKDOWN_FIELDS)('aggregates %s on its indexed field, ads desc then key asc', (field) => {
    const request = breakdownRequest(ADS, {}, field, 5);
    expect(request.track_total_hits).toBe(true);
    expect(request.aggs?.['buckets']?.terms).toMatchObject({
      field: fields[field],
      size: 5,
      order: [{ _count: 'desc' }, { _key: 'asc' }],
    });
  });

  it('reads the total and the buckets', () => {
    const parsed = breakdownFrom(
      response({
        hits: { total: { value: 7, relation: 'eq' }, hits: [] },
        aggregations: { buckets: { buckets: [{ key: 'US', doc_count: 5 }, { key: 'DE', doc_count: 2 }] } },
      }),
    );
    expect(parsed).toEqual({ total: 7, buckets: [{ key: 'US', ads: 5 }, { key: 'DE', ads: 2 }] });
  });
});

describe('trends', () => {
  const query: TrendQuery = {
    dimension: 'geo',
    filter: { platform: 'facebook' },
    window: { from: '2026-03-04', to: '2026-03-06' },
    previous: { from: '2026-03-01', to: '2026-03-03' },
    limit: 10,
  };

  it.each([
    ['geo', 'countries'],
    ['advertisers/cards', 'advertiser_id'],
    ['webmasters', 'webmaster_id'],
    ['apps', 'app_id'],
  ] as const)('ranks %s by %s in the window', (dimension, field) => {
    const request = rankedTrendRequest(ADS, { ...query, dimension });
    expect(request.query).toEqual(trendFilterQuery(query.filter, query.window));
    expect(request.aggs?.['rows']?.terms).toMatchObject({ field, size: 10, order: [{ _count: 'desc' }, { _key: 'asc' }] });
    expect(request.track_total_hits).toBe(true);
  });

  it('counts the same keys over the previous window', () => {
    const request = previousCountsRequest(ADS, 'webmasters', query.filter, query.previous, ['w1', 'w2']);
    expect(request.query).toEqual(trendFilterQuery(query.filter, query.previous));
    expect(request.aggs?.['rows']?.terms).toEqual({ field: 'webmaster_id', include: ['w1', 'w2'], size: 2 });
  });

  it('builds geo rows with their detail and previous counts', () => {
    const result = rankedTrendFrom(
      'geo',
      response({
        hits: { total: { value: 9, relation: 'eq' }, hits: [] },
        aggregations: {
          rows: {
            buckets: [
              { key: 'US', doc_count: 6, advertisers: { value: 3 }, top_categories: { buckets: [{ key: 'gaming', doc_count: 4 }] } },
            ],
          },
        },
      }),
      new Map([['US', 2]]),
    );
    expect(result).toEqual({
      totalAds: 9,
      rows: [{ key: 'US', label: 'US', ads: 6, previousAds: 2, detail: { advertisers: 3, top_categories: ['gaming'] } }],
    });
  });

  it('builds advertiser cards from the newest sample ads', () => {
    const result = rankedTrendFrom(
      'advertisers/cards',
      response({
        aggregations: {
          rows: {
            buckets: [
              {
                key: 'adv-1',
                doc_count: 4,
                platforms: { buckets: [{ key: 'tiktok', doc_count: 3 }, { key: 'facebook', doc_count: 1 }] },
                active: { doc_count: 2 },
                creatives: { value: 3 },
                top_countries: { buckets: [{ key: 'FR', doc_count: 4 }] },
                samples: { hits: { hits: [{ _source: { id: 'ad-9', advertiser_name: 'Acme' } }, { _source: { id: 'ad-8' } }] } },
              },
            ],
          },
        },
      }),
      new Map(),
    );
    expect(result.rows[0]).toEqual({
      key: 'adv-1',
      label: 'Acme',
      ads: 4,
      previousAds: 0,
      detail: {
        name: 'Acme',
        platforms: ['facebook', 'tiktok'],
        active_ads: 2,
        creatives: 3,
        top_countries: ['FR'],
        sample_ad_ids: ['ad-9', 'ad-8'],
      },
    });
  });

  it('builds webmaster and app rows', () => {
    const webmasters = rankedTrendFrom(
      'webmasters',
      response({
        aggregations: {
          rows: {
            buckets: [
              { key: 'w1', doc_count: 2, dominant: { buckets: [{ key: 'BR', doc_count: 2 }] }, advertisers: { value: 1 }, named: { hits: { hits: [{ _source: { webmaster_name: 'Leadgen' } }] } } },
            ],
          },
        },
      }),
      new Map(),
    );
    expect(webmasters.rows[0]).toMatchObject({ label: 'Leadgen', detail: { dominant_country: 'BR', advertisers: 1 } });
    const apps = rankedTrendFrom(
      'apps',
      response({
        aggregations: {
          rows: {
            buckets: [
              { key: 'app-1', doc_count: 1, advertisers: { value: 1 }, named: { hits: { hits: [{ _source: { app: { id: 'app-1', name: 'Slots', store: 'app_store', bundle_id: 'com.slots' } } }] } } },
            ],
          },
        },
      }),
      new Map(),
    );
    expect(apps.rows[0]).toMatchObject({ label: 'Slots', detail: { store: 'app_store', bundle_id: 'com.slots', advertisers: 1 } });
  });

  it('lists every day of a range', () => {
    expect(daysOf({ from: '2026-02-27', to: '2026-03-02' })).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('builds the timeline over both windows with a range-field histogram', () => {
    const request = timelineRequest(ADS, { ...query, dimension: 'timeline' });
    expect(request.query).toEqual(trendFilterQuery(query.filter, { from: '2026-03-01', to: '2026-03-06' }));
    expect(request.aggs?.['active_days']?.date_histogram).toMatchObject({
      field: 'active_period',
      calendar_interval: 'day',
      min_doc_count: 0,
      hard_bounds: { min: '2026-03-01', max: '2026-03-06' },
      extended_bounds: { min: '2026-03-01', max: '2026-03-06' },
    });
    const days = (counts: number[], from: number) =>
      counts.map((doc_count, i) => ({ key_as_string: `2026-03-0${from + i}`, key: 0, doc_count }));
    const result = timelineFrom(
      { ...query, dimension: 'timeline' },
      response({
        aggregations: {
          active_days: { buckets: days([1, 2, 3, 4, 5, 6], 1) },
          new_in_range: { days: { buckets: days([1, 0, 2, 0, 1, 0], 1) } },
          in_window: { doc_count: 8 },
        },
      }),
    );
    expect(result.totalAds).toBe(8);
    expect(result.rows).toEqual([
      { key: '2026-03-04', label: '2026-03-04', ads: 4, previousAds: 1, detail: { date: '2026-03-04', new_ads: 0, active_ads: 4 } },
      { key: '2026-03-05', label: '2026-03-05', ads: 5, previousAds: 2, detail: { date: '2026-03-05', new_ads: 1, active_ads: 5 } },
      { key: '2026-03-06', label: '2026-03-06', ads: 6, previousAds: 3, detail: { date: '2026-03-06', new_ads: 0, active_ads: 6 } },
    ]);
  });

  it('walks creatives with a composite aggregation and keeps the growing ones', () => {
    const first = scalingPageRequest(ADS, { ...query, dimension: 'scaling-creatives' });
    expect(first.aggs?.['creatives']?.composite).toMatchObject({ sources: [{ creative: { terms: { field: 'creative_id' } } }] });
    expect(first.aggs?.['in_window']).toBeDefined();
    const next = scalingPageRequest(ADS, { ...query, dimension: 'scaling-creatives' }, { creative: 'c9' });
    expect(next.aggs?.['creatives']?.composite?.after).toEqual({ creative: 'c9' });
    expect(next.aggs?.['in_window']).toBeUndefined();
    const page = scalingPageFrom(
      response({
        aggregations: {
          creatives: {
            after_key: { creative: 'c3' },
            buckets: [
              { key: { creative: 'c1' }, current: { doc_count: 5 }, previous: { doc_count: 1 } },
              { key: { creative: 'c2' }, current: { doc_count: 1 }, previous: { doc_count: 1 } },
              { key: { creative: 'c3' }, current: { doc_count: 6 }, previous: { doc_count: 2 } },
            ],
          },
          in_window: { doc_count: 12 },
        },
      }),
    );
    expect(page.after).toEqual({ creative: 'c3' });
    expect(page.totalAds).toBe(12);
    expect(page.candidates.sort(byGrowth).map((c) => c.key)).toEqual(['c3', 'c1']);
  });
});

describe('entities', () => {
  it('searches names by prefix of any word-boundary suffix, ads_total desc then id', () => {
    expect(nameSearchRequest('p-webmasters', { q: 'acme sp', limit: 5, after: { value: 12, id: 'w7' } })).toMatchObject({
      query: { prefix: { name_suffixes: { value: 'acme sp' } } },
      sort: [{ ads_total: { order: 'desc', missing: 0 } }, { id: { order: 'asc' } }],
      size: 6,
      search_after: [12, 'w7'],
    });
    expect(nameSearchRequest('p-apps', { limit: 5 }).query).toEqual({ match_all: {} });
  });

  it('lists a webmaster\'s advertisers from the advertiser rollups', () => {
    expect(webmasterAdvertisersRequest('p-advertisers', 'w1', { limit: 3 }).query).toEqual({ term: { webmaster_ids: 'w1' } });
  });

  it('pages entity hits', () => {
    const hit = (id: string, ads_total: number) => ({ _source: { id, ads_total, record: { id, n: ads_total } } });
    const page = entityPageFrom(response({ hits: { hits: [hit('a', 9), hit('b', 4), hit('c', 1)] } }), 2, (r) => r);
    expect(page).toEqual({ rows: [{ id: 'a', n: 9 }, { id: 'b', n: 4 }], hasMore: true, lastKey: { value: 4, id: 'b' } });
  });

  it('gives one activity entry per day, zero-filled', () => {
    const activity = activityFrom(
      { from: '2026-01-01', to: '2026-01-02' },
      response({ aggregations: { active_days: { buckets: [{ key_as_string: '2026-01-02', doc_count: 3 }] } } }),
    );
    expect(activity).toEqual([
      { date: '2026-01-01', new_ads: 0, active_ads: 0 },
      { date: '2026-01-02', new_ads: 0, active_ads: 3 },
    ]);
  });

  it('reads the catalog, empty store included', () => {
    expect(
      catalogFrom(
        response({
          aggregations: {
            countries: { buckets: [{ key: 'US', doc_count: 3 }] },
            categories: { buckets: [] },
            languages: { buckets: [{ key: 'en', doc_count: 3 }] },
            first_seen: { value: 1, value_as_string: '2026-01-01' },
            last_seen: { value: 2, value_as_string: '2026-02-01' },
            coverage: {
              buckets: [
                {
                  key: 'facebook',
                  countries: { buckets: [{ key: 'US', doc_count: 3, newest: { value: 2, value_as_string: '2026-02-01' } }] },
                },
              ],
            },
          },
        }),
      ),
    ).toEqual({
      countries: ['US'],
      categories: [],
      languages: ['en'],
      firstSeenDate: '2026-01-01',
      lastSeenDate: '2026-02-01',
      coverage: [{ platform: 'facebook', country: 'US', ads: 3, newestSighting: '2026-02-01' }],
    });
    expect(catalogFrom(response({ aggregations: { first_seen: { value: null }, last_seen: { value: null } } }))).toMatchObject({
      firstSeenDate: null,
      lastSeenDate: null,
    });
  });

  it('rolls an advertiser up into its merged record', () => {
    const bucket: RollupBucket = {
      key: { key: 'adv-1' },
      doc_count: 4,
      names: { buckets: [{ key: 'Acme Sports', doc_count: 3 }] },
      platforms: { buckets: [{ key: 'tiktok', doc_count: 3 }, { key: 'facebook', doc_count: 1 }] },
      accounts: { buckets: [{ key: 'tiktok:t1', doc_count: 3 }, { key: 'facebook:f1', doc_count: 1 }] },
      active: { doc_count: 1 },
      creatives: { value: 2 },
      webmasters: { value: 1 },
      webmaster_ids: { buckets: [{ key: 'w1', doc_count: 2 }] },
      countries: { buckets: [{ key: 'US', doc_count: 3 }, { key: 'CA', doc_count: 1 }] },
      categories: { buckets: [{ key: 'sports', doc_count: 4 }] },
      landing_domains: { buckets: [{ key: 'acme.com', doc_count: 4 }] },
      first_seen: { value: 0, value_as_string: '2026-01-01' },
      last_seen: { value: 0, value_as_string: '2026-02-01' },
    };
    expect(entityDocumentFrom('advertisers', bucket)).toEqual({
      id: 'adv-1',
      name_suffixes: ['acme sports', 'sports'],
      ads_total: 4,
      webmaster_ids: ['w1'],
      record: {
        id: 'adv-1',
        name: 'Acme Sports',
        platforms: ['facebook', 'tiktok'],
        ads_total: 4,
        active_ads: 1,
        platform_accounts: [
          { platform: 'facebook', account_id: 'f1' },
          { platform: 'tiktok', account_id: 't1' },
        ],
        creatives: 2,
        webmasters: 1,
        countries: [
          { country: 'US', ads: 3, share: 0.75 },
          { country: 'CA', ads: 1, share: 0.25 },
        ],
        categories: ['sports'],
        landing_domains: ['acme.com'],
        first_seen_date: '2026-01-01',
        last_seen_date: '2026-02-01',
      },
    });
  });

  it('gives a webmaster its dominant country and relevance', () => {
    const doc = entityDocumentFrom('webmasters', {
      key: { key: 'w1' },
      doc_count: 4,
      countries: { buckets: [{ key: 'BR', doc_count: 3 }, { key: 'PT', doc_count: 1 }] },
    });
    expect(doc.record).toMatchObject({ dominant_country: 'BR', relevance: 0.75, name: 'w1' });
  });
});

describe('index templates', () => {
  const names = indexNames('adi');
  const [ads, ...entities] = indexTemplates(names);

  it("names a generation's indices and finds the generation of any index of the prefix", () => {
    const load = names.inGeneration('20261127101500123');
    expect(load.adsIndexFor('2026-03-31')).toBe('adi-ads-20261127101500123-2026.03');
    expect([load.adsPattern, load.adsTemplate, load.feedIndex, load.entityGeneration('apps', load.generation)]).toEqual([
      'adi-ads-20261127101500123-*',
      'adi-ads-20261127101500123',
      'adi-feed-20261127101500123',
      'adi-apps-20261127101500123',
    ]);
    // The aliases stay the same in every generation.
    expect([load.ads, load.feed, load.entity('apps')]).toEqual([names.ads, names.feed, names.entity('apps')]);
    expect(['adi-ads-20261127101500123-2026.03', 'adi-feed-0', 'adi-webmasters-20250101000000000'].map((i) => names.generationOf(i))).toEqual(['20261127101500123', '0', '20250101000000000']);
    // The layout before generations, an alias, another prefix: no generation.
    expect(['adi-ads-2026.03', 'adi-feed', 'adi-ads', 'adix-feed-1', 'other-ads-1-2026.03'].map((i) => names.generationOf(i))).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(() => names.inGeneration('x1')).toThrow(/digits/);
  });

  it("keeps a loading generation's months out of the read alias until it is served", () => {
    const load = names.inGeneration('1');
    expect(adsTemplate(load, undefined, false)).toMatchObject({ name: 'adi-ads-1', index_patterns: ['adi-ads-1-*'], priority: 201, template: { aliases: {} } });
    expect(adsTemplate(load)).toMatchObject({ template: { aliases: { 'adi-ads': {} } } });
  });

  it('puts monthly ad indices behind the read alias', () => {
    expect(names.adsIndexFor('2026-03-31')).toBe('adi-ads-2026.03');
    expect(ads).toMatchObject({ index_patterns: ['adi-ads-*'], template: { aliases: { 'adi-ads': {} } } });
    expect(() => names.adsIndexFor('31/03/2026')).toThrow(/YYYY-MM-DD/);
    expect(() => indexNames('Bad Prefix')).toThrow(/ES_INDEX_PREFIX/);
  });

  it('sizes ad indices by the configured layout; entities get one primary and hour-long delete tombstones', () => {
    const [sizedAds, ...sizedEntities] = indexTemplates(names, { adsShards: 12, replicas: 0 });
    expect(sizedAds?.template.settings).toMatchObject({ number_of_shards: 12, number_of_replicas: 0 });
    for (const t of sizedEntities) expect(t.template.settings).toMatchObject({ number_of_shards: 1, number_of_replicas: 0, gc_deletes: '1h' });
    expect(ads?.version).toBe(TEMPLATE_VERSION);
  });

  it('sorts the default page (date desc) exactly as the index, so Lucene can stop early', () => {
    const sort = ads?.template.settings.sort as { field: string[]; order: string[] };
    const page = searchAdsRequest(ADS, { filter: {}, sort: 'date', order: 'desc', limit: 20 }).sort as Record<string, { order: string; missing?: unknown }>[];
    expect(page.map((s) => Object.keys(s)[0])).toEqual(sort.field);
    expect(page.map((s) => Object.values(s)[0]?.order)).toEqual(sort.order);
    // The index sort's missing is _last by default; the query's must be the same.
    expect(Object.values(page[0] ?? {})[0]?.missing).toBe('_last');
  });

  it('puts the current mapping on every existing index of each template', () => {
    expect(putMappingRequests(names).map((r) => r.index)).toEqual(['adi-ads-*', ...entities.map((t) => [t.index_patterns].flat()[0])]);
    expect(putMappingRequests(names)[0]).toMatchObject({ dynamic: 'strict', properties: ads?.template.mappings.properties });
  });

  it('maps ids as keywords, q fields as words and dates as dates, strictly', () => {
    const props = ads?.template.mappings.properties ?? {};
    expect(ads?.template.mappings.dynamic).toBe('strict');
    for (const id of ['id', 'advertiser_id', 'webmaster_id', 'creative_id', 'app_id', 'landing_domain_suffixes']) {
      expect(props[id]).toEqual({ type: 'keyword' });
    }
    for (const field of ['title', 'body', 'landing_url']) expect(props[field]).toMatchObject({ copy_to: 'search_text' });
    expect(props['search_text']).toEqual({ type: 'text', analyzer: 'words' });
    expect(props['first_seen_date']).toEqual({ type: 'date', format: 'strict_date' });
    expect(props['active_period']).toEqual({ type: 'date_range', format: 'strict_date' });
  });

  it('has one template per entity kind over its generations', () => {
    expect(entities.map((t) => [t.index_patterns].flat()[0])).toEqual([
      'adi-advertisers-*',
      'adi-webmasters-*',
      'adi-creatives-*',
      'adi-domains-*',
      'adi-apps-*',
    ]);
  });
});

describe('generations of an offline load', () => {
  const names = indexNames('adi');
  const aliased = (...aliases: string[]) => ({ aliases: Object.fromEntries(aliases.map((a) => [a, {}])) });

  it('finds the generations nobody serves (a stopped load, an old one left after a switch), never the served one', () => {
    const store = {
      'adi-ads-20260101000000000-2026.01': aliased('adi-ads'),
      'adi-advertisers-20260101000000000': aliased('adi-advertisers'),
      'adi-feed-20260101000000000': aliased('adi-feed'),
      'adi-ads-20260102000000000-2026.01': aliased(),
      'adi-feed-20260102000000000': aliased(),
      'adi-advertisers-20251201000000000': aliased(),
      // The layout before generations: not a generation's index, never removed here.
      'adi-ads-2025.12': aliased(),
    };
    expect(servedIndices(names, store)).toEqual(['adi-ads-20260101000000000-2026.01', 'adi-advertisers-20260101000000000', 'adi-feed-20260101000000000']);
    expect(unservedGenerations(names, store, ['adi-ads-20260101000000000', 'adi-ads-20260102000000000', 'adi-ads-20250101000000000'])).toEqual(
      new Map([
        ['20251201000000000', { indices: ['adi-advertisers-20251201000000000'], templates: [] }],
        ['20260102000000000', { indices: ['adi-ads-20260102000000000-2026.01', 'adi-feed-20260102000000000'], templates: ['adi-ads-20260102000000000'] }],
        ['20250101000000000', { indices: [], templates: ['adi-ads-20250101000000000'] }],
      ]),
    );
  });

  it('switches every alias in one request; the concrete feed index of the layout before generations is removed in it', () => {
    const load = names.inGeneration('2');
    const served = { 'adi-ads-2026.01': aliased('adi-ads'), 'adi-advertisers-1': aliased('adi-advertisers'), 'adi-feed': aliased() };
    expect(switchRequest(load, ['adi-ads-2-2026.01', 'adi-ads-2-2026.02'], served).actions).toEqual([
      { remove: { index: 'adi-ads-2026.01', alias: 'adi-ads' } },
      { remove: { index: 'adi-advertisers-1', alias: 'adi-advertisers' } },
      { remove_index: { index: 'adi-feed' } },
      { add: { index: 'adi-ads-2-2026.01', alias: 'adi-ads' } },
      { add: { index: 'adi-ads-2-2026.02', alias: 'adi-ads' } },
      ...ENTITY_KINDS.map((kind) => ({ add: { index: `adi-${kind}-2`, alias: `adi-${kind}` } })),
      { add: { index: 'adi-feed-2', alias: 'adi-feed' } },
    ]);
  });

  it('copies a served month into the same month of the new generation, without the change-feed fields', () => {
    expect(monthOf('adi-ads-1-2026.03')).toBe('2026.03');
    expect(monthOf('adi-ads-2026.03')).toBe('2026.03');
    expect(copyMonthRequest('adi-ads-1-2026.03', 'adi-ads-2-2026.03')).toMatchObject({
      source: { index: 'adi-ads-1-2026.03', _source: { excludes: ['change_seq', 'changed_at', 'feed_since', 'feed'] } },
      dest: { index: 'adi-ads-2-2026.03' },
      wait_for_completion: false,
    });
  });
});
