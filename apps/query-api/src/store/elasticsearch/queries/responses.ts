import type { estypes } from '@elastic/elasticsearch';

/** Shapes of the aggregation results the engine reads (the client types them as a wide union). */
export interface TermsBucket {
  key: string | number;
  key_as_string?: string;
  doc_count: number;
}
export interface TermsAgg<B = TermsBucket> {
  buckets: B[];
}
export interface ValueAgg {
  value: number | null;
  value_as_string?: string;
}
export interface FilterAgg {
  doc_count: number;
}
export interface TopHitsAgg<T> {
  hits: { hits: { _source?: T }[] };
}

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
