import type { estypes } from '@elastic/elasticsearch';

/**
 * The aggregates the engine reads, as the client's `estypes` define them (generated from the Elasticsearch
 * specification; the `*Keys` interfaces are the named fields without the catch-all for sub-aggregations, which each
 * request names itself). A response is typed by its request's aggregations (`SearchResponse<TDocument, TAggregations>`,
 * the client's own parameter), so no parser casts what it reads. Buckets are lists: the specification answers them
 * as a map only to a request with `keyed: true`, which no request sends.
 */
export type TermsBucket = estypes.AggregationsStringTermsBucketKeys;
export type TermsAgg<B = TermsBucket> = Omit<estypes.AggregationsStringTermsAggregate, 'buckets'> & { buckets: B[] };
export type ValueAgg = estypes.AggregationsSingleMetricAggregateBase;
export type FilterAgg = estypes.AggregationsFilterAggregateKeys;
export type TopHitsAgg<T> = Omit<estypes.AggregationsTopHitsAggregate, 'hits'> & { hits: estypes.SearchHitsMetadata<T> };
export type CompositeBucket<K> = Omit<estypes.AggregationsCompositeBucketKeys, 'key'> & { key: K };
export type CompositeAgg<B> = Omit<estypes.AggregationsCompositeAggregate, 'buckets'> & { buckets: B[] };
export type HistogramAgg = Omit<estypes.AggregationsDateHistogramAggregate, 'buckets'> & { buckets: estypes.AggregationsDateHistogramBucketKeys[] };
/** A search response whose aggregations are those its request names (each optional: an empty index answers none). */
export type Answer<A, T = unknown> = estypes.SearchResponse<T, Partial<A>>;

/** Ranking of every top list in the port: ads desc, then key asc. */
export const termsOrder: Record<string, estypes.SortOrder>[] = [{ _count: 'desc' }, { _key: 'asc' }];

export function hitsOf<T>(response: estypes.SearchResponse<T>): T[] {
  return response.hits.hits.flatMap((hit) => (hit._source === undefined ? [] : [hit._source]));
}

export function totalOf(response: estypes.SearchResponse<unknown>): number {
  const total = response.hits.total;
  if (total === undefined) return 0;
  return typeof total === 'number' ? total : total.value;
}

export function topSources<T>(agg: TopHitsAgg<T> | undefined): T[] {
  return (agg?.hits.hits ?? []).flatMap((hit) => (hit._source === undefined ? [] : [hit._source]));
}

export const keysOf = (agg: TermsAgg | undefined): string[] => (agg?.buckets ?? []).map((b) => String(b.key));
