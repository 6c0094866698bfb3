import type { estypes } from '@elastic/elasticsearch';
import type { AdChangesQuery, ChangedAd, CountResult, KeysetPage } from '../../ad-store.port';
import { AD_FIELDS, adFromSource, type AdDocument } from '../ad-document';
import { changeSince, type FeedPosition } from '../change-feed';
import { adFilterQuery } from './ad-filter.query';
import { TOLERATE_NO_INDEX } from './ads.query';
import type { Answer, ValueAgg } from './responses';

/** The requests of the change feed (change-feed.ts): the position document, the feed itself, and the day's passing. */

export const POSITION_ID = 'position';

/**
 * The feed index holds one small document (the position); nothing in it is searched, so it maps nothing
 * (`enabled: false`: kept in `_source`, read back by id).
 */
export function feedIndexRequest(index: string, replicas: number, alias?: string): estypes.IndicesCreateRequest {
  return { index, settings: { number_of_shards: 1, number_of_replicas: replicas }, mappings: { enabled: false }, ...(alias ? { aliases: { [alias]: {} } } : {}) };
}

/** A realtime get: it sees the last write of the position without waiting for a refresh. */
export function positionGetRequest(index: string): estypes.GetRequest {
  return { index, id: POSITION_ID };
}

/** Where the write stands: the `_seq_no`/`_primary_term` of the version it replaces (optimistic concurrency), or none yet. */
export type PositionVersion = { if_seq_no: number; if_primary_term: number } | 'absent' | 'any';

/**
 * Every write of the position is conditional on the version read (`if_seq_no`/`if_primary_term`), or creates it
 * (`op_type: create`) when there was none: two writers never both take the lease or both publish a batch.
 * `any` is the offline load's reset (a new store replaces whatever was there).
 */
export function positionWriteRequest(index: string, position: FeedPosition, version: PositionVersion): estypes.IndexRequest<FeedPosition> {
  const condition = version === 'absent' ? { op_type: 'create' as const } : version === 'any' ? {} : version;
  return { index, id: POSITION_ID, document: position, ...condition };
}

/** The position document as a get answers it (undefined: none yet). */
export function positionFrom(response: estypes.GetGetResult<FeedPosition>): { position: FeedPosition; version: PositionVersion } | undefined {
  if (!response.found || !response._source || response._seq_no === undefined || response._primary_term === undefined) return undefined;
  return { position: response._source, version: { if_seq_no: response._seq_no, if_primary_term: response._primary_term } };
}

export function positionVersionOf(response: estypes.WriteResponseBase): PositionVersion {
  return { if_seq_no: response._seq_no ?? 0, if_primary_term: response._primary_term ?? 0 };
}

/** The data's day of a store loaded before the feed existed (or by the load): its newest last sighting. */
export function dataDayRequest(index: string): estypes.SearchRequest {
  return { index, ...TOLERATE_NO_INDEX, size: 0, track_total_hits: false, aggs: { day: { max: { field: 'last_seen_date', format: 'yyyy-MM-dd' } } } };
}

export interface DataDayAggs {
  day: ValueAgg;
}

export function dataDayFrom(response: Answer<DataDayAggs>): string {
  const day = response.aggregations?.day;
  return day?.value === null || day?.value === undefined ? '' : (day.value_as_string ?? '');
}

/** Ads per page of the day's passing. */
export const DAY_PAGE = 1_000;

/**
 * The ads the data's day moved past in this batch: active, last seen on a day from the old data's day up to (not
 * including) the new one. They end without a sighting of their own (issue 36), so the batch writes their feed entry.
 * Walked by id with `search_after` (the batch holds the feed's lease: no other writer changes them meanwhile).
 */
export function dayPassedRequest(index: string, oldDay: string, newDay: string, afterId?: string): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: { bool: { filter: [{ term: { status_today: 'active' } }, { range: { last_seen_date: { gte: oldDay, lt: newDay } } }] } },
    sort: [{ id: { order: 'asc' } }],
    size: DAY_PAGE,
    track_total_hits: false,
    ...(afterId === undefined ? {} : { search_after: [afterId] }),
  };
}

/**
 * The feed since `query.since` up to the published position `seq`, under the filters (on the ads' state now): ads
 * whose `feed_since` holds the watermark, in change order (change_seq, then id) with `search_after`. A batch being
 * written (change_seq above the position) is left for the next call: its watermark is the position answered.
 * With `after`, the query also keeps only the ads after it, so the total counts the rest of the feed, as SQLite's does;
 * `search_after` on the same sort lets the page stop at its size.
 */
export function changesRequest(index: string, query: AdChangesQuery, seq: number): estypes.SearchRequest {
  const clauses: estypes.QueryDslQueryContainer[] = [
    adFilterQuery(query.filter),
    { term: { feed_since: query.since.seq } },
    { range: { change_seq: { lte: seq } } },
  ];
  const after = query.after;
  if (after) {
    const value = Number(after.value);
    clauses.push({
      bool: {
        should: [{ range: { change_seq: { gt: value } } }, { bool: { filter: [{ term: { change_seq: value } }, { range: { id: { gt: after.id } } }] } }],
        minimum_should_match: 1,
      },
    });
  }
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: { bool: { filter: clauses } },
    sort: [{ change_seq: { order: 'asc' } }, { id: { order: 'asc' } }],
    size: query.limit > 0 ? query.limit + 1 : 0,
    track_total_hits: query.countUpTo + 1,
    _source: [...AD_FIELDS, 'change_seq', 'changed_at', 'feed'],
    ...(after ? { search_after: [Number(after.value), after.id] } : {}),
  };
}

export function changesPageFrom(
  response: estypes.SearchResponse<Partial<AdDocument>>,
  query: AdChangesQuery,
): { page: KeysetPage<ChangedAd>; count: CountResult } {
  const hits = response.hits.hits.flatMap((hit) => (hit._source ? [hit._source] : []));
  const rows: ChangedAd[] = hits.slice(0, query.limit).map((source) => ({
    ...adFromSource(source),
    // Every hit's feed_since holds the watermark, so its state then differs from now: a change is always found.
    change: changeSince(source.feed, query.since.seq) ?? 'changed',
    changed_at: source.changed_at ?? '',
  }));
  const lastSource = hits[rows.length - 1];
  const total = response.hits.total;
  const value = total === undefined ? 0 : typeof total === 'number' ? total : total.value;
  const count = value > query.countUpTo ? { total: query.countUpTo, estimated: true } : { total: value, estimated: false };
  return {
    page: {
      rows,
      hasMore: hits.length > query.limit,
      lastKey: lastSource?.id ? { value: lastSource.change_seq ?? 0, id: lastSource.id } : null,
    },
    count,
  };
}
