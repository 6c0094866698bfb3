import type { estypes } from '@elastic/elasticsearch';
import type { Ad, AdSort, BreakdownField, Platform } from '@adintel/contracts';
import type { AdDetailRecord, AdFilter, AdSearchQuery, BreakdownResult, CountResult, KeysetPage, SortKey } from '../../ad-store.port';
import { AD_FIELDS, adFromSource, type AdDocument } from '../ad-document';
import { adFilterQuery } from './ad-filter.query';
import { type Answer, hitsOf, totalOf, type TermsAgg, termsOrder } from './responses';

/** Sort field per AdSort, and the `_source` field its value is read back from. */
export const AD_SORT_FIELD: Record<AdSort, keyof Ad> = {
  date: 'first_seen_date',
  days_active: 'days_active',
  activity_days_amount: 'activity_days_amount',
  most_popular: 'popularity',
  impressions: 'impressions',
};

/** Searches on the read alias tolerate an empty store (no monthly index yet): they answer empty, not 404. */
export const TOLERATE_NO_INDEX = { ignore_unavailable: true, allow_no_indices: true } as const;

/**
 * `missing` of each sort. A date field sorts as a long, and Elasticsearch parses `missing` as one: only a
 * number or `_first`/`_last` is accepted there, never a date string (a string fails every page with a 400;
 * test/store/elasticsearch/spec/es-rules.ts holds the rule). Every ad has a first_seen_date (the writer
 * refuses records without one), so the date sort's `missing` never applies; `_last` is the index sort's own
 * default, which lets a `date desc` page stop early on the index sort (mappings.ts). The numeric sort fields
 * can be absent: 0 keeps their sort value a number JSON carries back into `search_after`.
 */
const missingOf = (sort: AdSort): estypes.FieldValue => (sort === 'date' ? '_last' : 0);

/**
 * Keyset page: sort on the requested field, then on id in the same direction, and resume strictly
 * after `after` with `search_after`. Dates travel as epoch milliseconds in `search_after` (unambiguous
 * whatever the field's format). One row more than the limit is fetched to know whether another page exists.
 */
export function searchAdsRequest(index: string, query: AdSearchQuery): estypes.SearchRequest {
  const field = AD_SORT_FIELD[query.sort];
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: adFilterQuery(query.filter),
    sort: [
      { [field]: { order: query.order, missing: missingOf(query.sort) } },
      { id: { order: query.order } },
    ],
    size: query.limit + 1,
    track_total_hits: false,
    _source: [...AD_FIELDS],
    ...(query.after ? { search_after: [searchAfterValue(query.sort, query.after), query.after.id] } : {}),
  };
}

function searchAfterValue(sort: AdSort, after: SortKey): number {
  if (sort === 'date') {
    const millis = Date.parse(`${String(after.value)}T00:00:00Z`);
    if (Number.isNaN(millis)) throw new Error(`cursor date ${JSON.stringify(after.value)} is not YYYY-MM-DD`);
    return millis;
  }
  const value = Number(after.value);
  if (!Number.isFinite(value)) throw new Error(`cursor value ${JSON.stringify(after.value)} is not a number`);
  return value;
}

export function adsPageFrom(response: estypes.SearchResponse<Partial<AdDocument>>, query: AdSearchQuery): KeysetPage<Ad> {
  const hits = hitsOf(response);
  const rows = hits.slice(0, query.limit).map(adFromSource);
  const last = rows.at(-1);
  const field = AD_SORT_FIELD[query.sort];
  return {
    rows,
    hasMore: hits.length > query.limit,
    lastKey: last ? { value: last[field] as string | number, id: last.id } : null,
  };
}

/**
 * `track_total_hits` counts exactly up to its bound, then stops (relation `gte`). The bound is one above
 * `exactUpTo`, so exactly `exactUpTo` matches still read as exact, and anything above it is an estimate,
 * whatever relation the cluster reports at the bound itself. An estimate reads as `exactUpTo`, as the SQLite
 * engine reports it (CountResult in ad-store.port.ts; the contract suite pins both).
 */
export function countAdsRequest(index: string, filter: AdFilter, exactUpTo: number): estypes.SearchRequest {
  return { index, ...TOLERATE_NO_INDEX, query: adFilterQuery(filter), size: 0, track_total_hits: exactUpTo + 1 };
}

export function countFrom(response: estypes.SearchResponse, exactUpTo: number): CountResult {
  const total = response.hits.total;
  const value = total === undefined ? 0 : typeof total === 'number' ? total : total.value;
  const atLeast = typeof total === 'object' && total.relation === 'gte';
  return atLeast || value > exactUpTo ? { total: exactUpTo, estimated: true } : { total: value, estimated: false };
}

/** The ad with this id, with what get_ad adds (media, names). Searched on the alias: the month is unknown. */
export function getAdRequest(index: string, id: string): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: { term: { id } },
    size: 1,
    _source: [...AD_FIELDS, 'media', 'advertiser_name', 'webmaster_name'],
  };
}

/** `advertiserPlatforms`: the merged advertiser's platforms (from its record), when known. */
export function adDetailFrom(
  response: estypes.SearchResponse<Partial<AdDocument>>,
  advertiserPlatforms: Platform[] | null,
): AdDetailRecord | null {
  const source = hitsOf(response)[0];
  if (!source) return null;
  const ad = adFromSource(source);
  return {
    ...ad,
    media: source.media ?? [],
    advertiser: {
      id: ad.advertiser_id,
      name: source.advertiser_name ?? ad.advertiser_id,
      platforms: advertiserPlatforms ?? [ad.platform_name],
    },
    webmaster: ad.webmaster_id ? { id: ad.webmaster_id, name: source.webmaster_name ?? ad.webmaster_id } : null,
  };
}

const BREAKDOWN_SOURCE_FIELD: Record<BreakdownField, string> = {
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

/**
 * Top buckets by ads desc, key asc, and the exact number of matching ads. A large `shard_size` keeps
 * the top buckets exact across monthly indices for every low-cardinality field; for landing_domain
 * (high cardinality) the counts of the tail may be approximate on very large data.
 */
export function breakdownRequest(index: string, filter: AdFilter, field: BreakdownField, limit: number): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: adFilterQuery(filter),
    size: 0,
    track_total_hits: true,
    aggs: {
      buckets: {
        terms: { field: BREAKDOWN_SOURCE_FIELD[field], size: limit, shard_size: Math.max(limit * 10, 1000), order: termsOrder },
      },
    },
  };
}

export interface BreakdownAggs {
  buckets: TermsAgg;
}

export function breakdownFrom(response: Answer<BreakdownAggs>): BreakdownResult {
  const aggs = response.aggregations;
  return {
    total: totalOf(response),
    buckets: (aggs?.buckets?.buckets ?? []).map((b) => ({ key: String(b.key), ads: b.doc_count })),
  };
}
