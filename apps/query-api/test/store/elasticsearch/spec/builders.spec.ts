/**
 * Every request builder of the Elasticsearch engine, in every variant the port can ask for, against the official
 * specification (es-spec.ts, from @elastic/request-converter's schema.json) and the rules it cannot express
 * (es-rules.ts). No Elasticsearch server can run on the build machines: this is the check standing in for a cluster's
 * parser. The first block shows the validator refuses what a cluster refuses, so a pass here means something.
 */
import { AD_SORTS, BREAKDOWN_FIELDS } from '@adintel/contracts';
import type { AdFilter, AdRecord } from '../../../../src/store/ad-store.port';
import { toAdDocument } from '../../../../src/store/elasticsearch/ad-document';
import { ENTITY_KINDS, indexNames } from '../../../../src/store/elasticsearch/index-names';
import { adsTemplate, indexTemplates, putMappingRequests } from '../../../../src/store/elasticsearch/mappings';
import { copyMonthRequest, generationTemplatesRequest, storeIndicesRequest, switchRequest } from '../../../../src/store/elasticsearch/queries/generations.query';
import { breakdownRequest, countAdsRequest, getAdRequest, searchAdsRequest } from '../../../../src/store/elasticsearch/queries/ads.query';
import { bulkOperations } from '../../../../src/store/elasticsearch/queries/bulk.query';
import {
  advertiserActivityRequest,
  catalogRequest,
  entityByIdRequest,
  nameSearchRequest,
  webmasterAdvertisersRequest,
} from '../../../../src/store/elasticsearch/queries/entities.query';
import { adIndexActions, deleteActions, entityActions, storedAdsRequest } from '../../../../src/store/elasticsearch/queries/live.query';
import {
  creativeHashesRequest,
  creativeRowsRequest,
  heldAdMediaRequest,
  heldCreativeMediaRequest,
} from '../../../../src/store/elasticsearch/queries/lookalikes.query';
import { onPointInTime, pageSizeOf, rebuildPointInTimeRequest, rollupPageRequest } from '../../../../src/store/elasticsearch/queries/rollups.query';
import {
  previousCountsRequest,
  rankedTrendRequest,
  scalingDetailRequest,
  scalingPageRequest,
  timelineRequest,
} from '../../../../src/store/elasticsearch/queries/trends.query';
import { withFeed } from '../../../../src/store/elasticsearch/change-feed';
import {
  changesRequest,
  dataDayRequest,
  dayPassedRequest,
  feedIndexRequest,
  positionGetRequest,
  positionWriteRequest,
} from '../../../../src/store/elasticsearch/queries/feed.query';
import { FIXTURE_RECORDS } from '../../store-fixture';
import { bulkRuleErrors, MAX_BUCKETS, searchRuleErrors } from './es-rules';
import { specification } from './es-spec';

const names = indexNames('adi');
const spec = specification();
type Body = Record<string, unknown>;

/** Specification and rule errors of a search request as the builders return it. */
const searchErrors = (request: object) => [...spec.validateRequest('search', request as Body), ...searchRuleErrors(request as Body)];

describe('the validator refuses what a cluster refuses', () => {
  const good = searchAdsRequest(names.ads, { filter: {}, sort: 'date', order: 'desc', limit: 20 });

  it('accepts a builder output, and refuses misspelled keys, wrong values and two variants in one container', () => {
    expect(searchErrors(good)).toEqual([]);
    expect(
      searchErrors({
        ...good,
        track_total_hits: 'yes',
        aggs: { a: { terms: { field: 'x', order: { _count: 'down' } }, cardinality: { field: 'y' } }, b: { date_histogram: { field: 'd', calendar_intervall: 'day' } } },
      }),
    ).toEqual([
      'track_total_hits: must be a boolean (got "yes")',
      'aggs.a.terms.order._count: must be one of asc, desc (got "down")',
      'aggs.a: a container takes exactly one of its variants (got terms, cardinality)',
      'aggs.b.date_histogram.calendar_intervall: unknown property',
      'aggs.b.date_histogram: unbounded, its buckets cannot be budgeted',
    ]);
  });

  it('refuses a date sort whose missing is a date (R1), and a search_after of another arity', () => {
    const bad = { ...good, sort: [{ first_seen_date: { order: 'desc', missing: '1970-01-01' } }, { id: { order: 'desc' } }], search_after: [1] };
    expect(searchErrors(bad)).toEqual([
      'sort[0].first_seen_date.missing: a date sort parses missing as a number or _first/_last (got "1970-01-01")',
      'search_after: 1 values for 2 sort fields',
    ]);
  });

  it('refuses pages past the result window, bucket trees past search.max_buckets, and cardinality past its memory budget', () => {
    const errors = searchErrors({
      index: 'x',
      size: 10_001,
      aggs: { rows: { terms: { field: 'countries', size: 300, shard_size: 5_000 }, aggs: { sub: { terms: { field: 'categories', size: 300 } }, n: { cardinality: { field: 'id', precision_threshold: 40_000 } } } } },
    });
    expect(errors).toEqual([
      'size: from + size 10001 is past index.max_result_window 10000',
      `aggs: up to 90300 buckets, past search.max_buckets ${MAX_BUCKETS}`,
      'aggs: cardinality may take 1526 MB per shard, past the 64 MB budget',
    ]);
  });

  it('checks each bulk action line on the specification, its document line, and unmapped fields (dynamic: strict)', () => {
    expect(
      bulkRuleErrors([{ index: { _index: 'adi-ads-2026.01', _id: 'a' } }, { id: 'a', brand_new_field: 1 }, { delete: { _index: 'x', _id: 'b', bogus: 1 } }, { index: { _index: 'adi-ads-2026.01' } }]),
    ).toEqual([
      'line 2: field brand_new_field is not mapped in adi-ads-2026.01 (dynamic: strict refuses the document)',
      'line 3.delete.bogus: unknown property',
      'line 4: the index action needs its document',
    ]);
  });
});

describe('every request the engine builds validates', () => {
  const filters: AdFilter[] = [
    {},
    {
      words: ['promo', 'sale'],
      country: 'US',
      platforms: ['facebook', 'tiktok'],
      categories: ['finance_and_banking'],
      status: 'active',
      destinationType: 'online_shop',
      advertiserId: 'adv-1',
      webmasterId: 'wm-1',
      landingDomain: 'example.com',
      appId: 'app-1',
      creativeId: 'cr-1',
      dateFrom: '2026-01-01',
      dateTo: '2026-03-31',
    },
    { dateFrom: '2026-01-01' },
  ];
  const window = { from: '2026-03-04', to: '2026-03-31' };
  const previous = { from: '2026-02-04', to: '2026-03-03' };

  it.each(AD_SORTS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))('search_ads sorted by %s %s, every filter, first and next page', (sort, order) => {
    for (const filter of filters) {
      expect(searchErrors(searchAdsRequest(names.ads, { filter, sort, order, limit: 100 }))).toEqual([]);
      const after = { value: sort === 'date' ? '2026-03-01' : 7, id: 'ad_9' };
      expect(searchErrors(searchAdsRequest(names.ads, { filter, sort, order, limit: 100, after }))).toEqual([]);
    }
  });

  it('counts, get_ad and every breakdown field', () => {
    for (const filter of filters) {
      expect(searchErrors(countAdsRequest(names.ads, filter, 10_000))).toEqual([]);
      for (const field of BREAKDOWN_FIELDS) expect(searchErrors(breakdownRequest(names.ads, filter, field, 100))).toEqual([]);
    }
    expect(searchErrors(getAdRequest(names.ads, 'ad_1'))).toEqual([]);
  });

  it('every trend dimension, previous counts, timeline and scaling creatives', () => {
    for (const dimension of ['geo', 'advertisers/cards', 'webmasters', 'apps'] as const) {
      const query = { dimension, filter: { platform: 'facebook' as const }, window, previous, limit: 50 };
      expect(searchErrors(rankedTrendRequest(names.ads, query))).toEqual([]);
      expect(searchErrors(previousCountsRequest(names.ads, dimension, query.filter, previous, ['a', 'b']))).toEqual([]);
    }
    const query = { dimension: 'timeline' as const, filter: {}, window, previous, limit: 50 };
    expect(searchErrors(timelineRequest(names.ads, query))).toEqual([]);
    const scaling = { ...query, dimension: 'scaling-creatives' as const };
    expect(searchErrors(scalingPageRequest(names.ads, scaling))).toEqual([]);
    expect(searchErrors(scalingPageRequest(names.ads, scaling, { creative: 'c9' }))).toEqual([]);
    expect(searchErrors(scalingDetailRequest(names.ads, scaling, ['c1', 'c2']))).toEqual([]);
  });

  it('entity lists, records, activity, the catalog and similar_to', () => {
    for (const kind of ENTITY_KINDS) {
      const index = names.entity(kind);
      expect(searchErrors(nameSearchRequest(index, { q: 'acme sp', limit: 20, after: { value: 12, id: 'w7' } }))).toEqual([]);
      expect(searchErrors(nameSearchRequest(index, { limit: 20 }))).toEqual([]);
      expect(searchErrors(entityByIdRequest(index, 'e1'))).toEqual([]);
    }
    expect(searchErrors(webmasterAdvertisersRequest(names.entity('advertisers'), 'w1', { limit: 20, after: { value: 3, id: 'a' } }))).toEqual([]);
    expect(searchErrors(advertiserActivityRequest(names.ads, 'adv-1', window))).toEqual([]);
    expect(searchErrors(catalogRequest(names.ads))).toEqual([]);
    expect(searchErrors(creativeHashesRequest(names.entity('creatives'), null))).toEqual([]);
    expect(searchErrors(creativeHashesRequest(names.entity('creatives'), 'cr_5'))).toEqual([]);
    expect(searchErrors(creativeRowsRequest(names.entity('creatives'), ['cr_1']))).toEqual([]);
    expect(searchErrors(heldAdMediaRequest(names.ads, ['ad_1']))).toEqual([]);
    expect(searchErrors(heldCreativeMediaRequest(names.entity('creatives'), ['cr_1']))).toEqual([]);
  });

  it.each(ENTITY_KINDS)('rollup pages of %s, whole walk and live ids, stay within search.max_buckets', (kind) => {
    expect(searchErrors(rollupPageRequest(names.ads, kind))).toEqual([]);
    expect(searchErrors(rollupPageRequest(names.ads, kind, { key: 'x' }, ['a', 'b']))).toEqual([]);
    // The offline rebuild's pages, on its point in time (R11).
    expect(spec.validateRequest('open_point_in_time', rebuildPointInTimeRequest(names.ads) as unknown as Body)).toEqual([]);
    expect(searchErrors(onPointInTime(rollupPageRequest(names.ads, kind, { key: 'x' }), 'pit-id'))).toEqual([]);
    expect(pageSizeOf(kind)).toBeGreaterThan(0);
  });

  it('the live path: stored copies, ad and entity bulk lines', () => {
    expect(searchErrors(storedAdsRequest(names.ads, ['a', 'b']))).toEqual([]);
    const documents = FIXTURE_RECORDS.map((record: AdRecord) => ({ index: names.adsIndexFor(record.first_seen_date), doc: toAdDocument(record) }));
    const ads = bulkOperations([...adIndexActions(documents), ...deleteActions([{ index: 'adi-ads-2025.12', id: 'ad_01' }])]);
    const entities = bulkOperations(entityActions(names.entity('advertisers'), [{ id: 'a1', name_suffixes: ['acme'], ads_total: 3, webmaster_ids: ['w1'], record: {} }], ['a2'], 1));
    for (const operations of [ads, entities]) {
      expect(spec.validateRequest('bulk', { operations, refresh: 'wait_for' })).toEqual([]);
      expect(bulkRuleErrors(operations)).toEqual([]);
    }
  });

  it('the change feed: its position document, the feed with every filter, first and next page, the day passing', () => {
    const position = { store: 'load-1', seq: 7, from: 0, day: '2026-01-31', marks: [[3, '2026-01-31T10:00:00.000Z']] as [number, string][], lease: null };
    expect(spec.validateRequest('indices.create', feedIndexRequest(names.feed, 1) as unknown as Body)).toEqual([]);
    expect(spec.validateRequest('get', positionGetRequest(names.feed) as unknown as Body)).toEqual([]);
    for (const version of ['absent', 'any', { if_seq_no: 4, if_primary_term: 1 }] as const) {
      expect(spec.validateRequest('index', positionWriteRequest(names.feed, position, version) as unknown as Body)).toEqual([]);
    }
    for (const filter of filters) {
      const query = { filter, since: { store: 'load-1', seq: 2 }, limit: 100, countUpTo: 10_000 };
      expect(searchErrors(changesRequest(names.ads, query, 7))).toEqual([]);
      expect(searchErrors(changesRequest(names.ads, { ...query, after: { value: 5, id: 'ad_9' } }, 7))).toEqual([]);
      expect(searchErrors(changesRequest(names.ads, { ...query, limit: 0 }, 7))).toEqual([]);
    }
    expect(searchErrors(dataDayRequest(names.ads))).toEqual([]);
    expect(searchErrors(dayPassedRequest(names.ads, '2026-01-30', '2026-01-31'))).toEqual([]);
    expect(searchErrors(dayPassedRequest(names.ads, '2026-01-30', '2026-01-31', 'ad_5'))).toEqual([]);
    // An ad document with its feed fields, as the live path writes it, is a valid bulk document of the ad mapping.
    const record = FIXTURE_RECORDS[0] as AdRecord;
    const step = { seq: 2, at: '2026-02-01T00:00:00.000Z', oldDay: '2026-01-31', newDay: '2026-01-31', from: 0 };
    const changed = withFeed(toAdDocument({ ...record, countries: ['DE'] }), toAdDocument(record), step);
    expect(changed.feed_since).toEqual([{ gte: 0, lt: 2 }]);
    const operations = bulkOperations(adIndexActions([{ index: names.adsIndexFor(record.first_seen_date), doc: changed }]));
    expect(spec.validateRequest('bulk', { operations, refresh: 'wait_for' })).toEqual([]);
    expect(bulkRuleErrors(operations)).toEqual([]);
  });

  it('templates, mapping updates and the index layout', () => {
    for (const template of indexTemplates(names, { adsShards: 12, replicas: 0 })) {
      expect(spec.validateRequest('indices.put_index_template', template as unknown as Body)).toEqual([]);
    }
    for (const request of putMappingRequests(names)) expect(spec.validateRequest('indices.put_mapping', request as unknown as Body)).toEqual([]);
    expect(spec.validateRequest('indices.update_aliases', { actions: [{ add: { index: 'adi-advertisers-2', alias: 'adi-advertisers' } }, { remove_index: { index: 'adi-advertisers-1' } }] })).toEqual([]);
  });

  it("an offline load's generations: listing the store, the copy of a month, the hidden template and the switch", () => {
    const load = names.inGeneration('20261127101500123');
    expect(spec.validateRequest('indices.get', storeIndicesRequest(names) as unknown as Body)).toEqual([]);
    expect(spec.validateRequest('indices.get_index_template', generationTemplatesRequest(names) as unknown as Body)).toEqual([]);
    expect(spec.validateRequest('reindex', copyMonthRequest('adi-ads-2026.01', load.adsIndexFor('2026-01-01')) as unknown as Body)).toEqual([]);
    expect(spec.validateRequest('indices.put_index_template', adsTemplate(load, undefined, false) as unknown as Body)).toEqual([]);
    expect(spec.validateRequest('tasks.get', { task_id: 'node-1:7' })).toEqual([]);
    const served = { 'adi-ads-0-2026.01': { aliases: { 'adi-ads': {} } }, 'adi-advertisers-0': { aliases: { 'adi-advertisers': {} } }, 'adi-feed': { aliases: {} } };
    expect(spec.validateRequest('indices.update_aliases', switchRequest(load, [load.adsIndexFor('2026-01-01')], served) as unknown as Body)).toEqual([]);
  });
});
