import type { estypes } from '@elastic/elasticsearch';
import type { Platform } from '@adintel/contracts';
import type { CatalogData, DateRange, KeysetPage, NameQuery, PagedNameQuery, SortKey } from '../../ad-store.port';
import { TOLERATE_NO_INDEX } from './ads.query';
import { dailyActivityAggs, type DailyAggs, daysOf, dailyCountsFrom } from './trends.query';
import { activeIn } from './ad-filter.query';
import { type Answer, hitsOf, keysOf, type TermsAgg, type TermsBucket, termsOrder, type ValueAgg } from './responses';
import type { ActivityDayData } from '../../ad-store.port';

/** An entity rollup document (advertiser, webmaster, creative, domain, app): see mappings.ts. */
export interface EntityDocument<R> {
  id: string;
  name_suffixes: string[];
  ads_total: number;
  webmaster_ids?: string[];
  record: R;
}

const byVolume: estypes.SortCombinations[] = [{ ads_total: { order: 'desc', missing: 0 } }, { id: { order: 'asc' } }];

function keysetRequest(
  index: string,
  query: estypes.QueryDslQueryContainer,
  limit: number,
  after?: SortKey,
): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query,
    sort: byVolume,
    size: limit + 1,
    track_total_hits: false,
    _source: ['id', 'ads_total', 'record'],
    ...(after ? { search_after: [Number(after.value), after.id] } : {}),
  };
}

/** Name search: the name, or its part from any word on, starts with q (one `prefix` on the word suffixes). */
export function nameSearchRequest(index: string, query: NameQuery | PagedNameQuery): estypes.SearchRequest {
  const match: estypes.QueryDslQueryContainer = query.q
    ? { prefix: { name_suffixes: { value: query.q } } }
    : { match_all: {} };
  return keysetRequest(index, match, query.limit, 'after' in query ? query.after : undefined);
}

/** Advertisers with at least one ad by this webmaster, by their ads_total desc, id asc. */
export function webmasterAdvertisersRequest(
  index: string,
  webmasterId: string,
  page: { limit: number; after?: SortKey },
): estypes.SearchRequest {
  return keysetRequest(index, { term: { webmaster_ids: webmasterId } }, page.limit, page.after);
}

export function entityPageFrom<R, T>(
  response: estypes.SearchResponse<Partial<EntityDocument<R>>>,
  limit: number,
  project: (record: R) => T,
): KeysetPage<T> {
  const docs = hitsOf(response).filter((d): d is EntityDocument<R> => d.record !== undefined && d.id !== undefined);
  const page = docs.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((d) => project(d.record)),
    hasMore: docs.length > limit,
    lastKey: last ? { value: last.ads_total, id: last.id } : null,
  };
}

/** One entity by id. A search (not GET) so an empty store answers "none" rather than index_not_found. */
export function entityByIdRequest(index: string, id: string): estypes.SearchRequest {
  return { index, ...TOLERATE_NO_INDEX, query: { ids: { values: [id] } }, size: 1, _source: ['record'] };
}

export function entityFrom<R>(response: estypes.SearchResponse<Partial<EntityDocument<R>>>): R | null {
  return hitsOf(response)[0]?.record ?? null;
}

/** Per-day new and active ads of one advertiser over a range. */
export function advertiserActivityRequest(index: string, advertiserId: string, range: DateRange): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: { bool: { filter: [{ term: { advertiser_id: advertiserId } }, activeIn(range)] } },
    size: 0,
    track_total_hits: false,
    aggs: dailyActivityAggs(range),
  };
}

export function activityFrom(range: DateRange, response: Answer<DailyAggs>): ActivityDayData[] {
  const { active, created } = dailyCountsFrom(response.aggregations);
  return daysOf(range).map((date) => ({ date, new_ads: created.get(date) ?? 0, active_ads: active.get(date) ?? 0 }));
}

const CATALOG_MAX_VALUES = 1_000;

export function catalogRequest(index: string): estypes.SearchRequest {
  const values = (field: string): estypes.AggregationsAggregationContainer => ({
    terms: { field, size: CATALOG_MAX_VALUES, order: termsOrder },
  });
  return {
    index,
    ...TOLERATE_NO_INDEX,
    size: 0,
    track_total_hits: false,
    aggs: {
      countries: values('countries'),
      categories: values('categories'),
      languages: values('languages'),
      first_seen: { min: { field: 'first_seen_date', format: 'yyyy-MM-dd' } },
      last_seen: { max: { field: 'last_seen_date', format: 'yyyy-MM-dd' } },
      coverage: {
        terms: { field: 'platform_name', size: 10, order: { _key: 'asc' } },
        aggs: {
          countries: {
            terms: { field: 'countries', size: CATALOG_MAX_VALUES, order: termsOrder },
            aggs: { newest: { max: { field: 'last_seen_date', format: 'yyyy-MM-dd' } } },
          },
        },
      },
    },
  };
}

type CoverageAgg = TermsAgg<TermsBucket & { countries?: TermsAgg<TermsBucket & { newest?: ValueAgg }> }>;

export interface CatalogAggs {
  countries: TermsAgg;
  categories: TermsAgg;
  languages: TermsAgg;
  first_seen: ValueAgg;
  last_seen: ValueAgg;
  coverage: CoverageAgg;
}

export function catalogFrom(response: Answer<CatalogAggs>): CatalogData {
  const aggs = response.aggregations;
  const dateOf = (agg: ValueAgg | undefined) => (agg?.value === null || agg?.value === undefined ? null : (agg.value_as_string ?? null));
  return {
    countries: keysOf(aggs?.countries),
    categories: keysOf(aggs?.categories),
    languages: keysOf(aggs?.languages),
    firstSeenDate: dateOf(aggs?.first_seen),
    lastSeenDate: dateOf(aggs?.last_seen),
    coverage: (aggs?.coverage?.buckets ?? []).flatMap((platform) =>
      (platform.countries?.buckets ?? []).map((country) => ({
        platform: String(platform.key) as Platform,
        country: String(country.key),
        ads: country.doc_count,
        newestSighting: dateOf(country.newest) ?? '',
      })),
    ),
  };
}
