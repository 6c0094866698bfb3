import type { KeysetPage, SortKey } from '../store/ad-store.port';

/** A row of a ranking computed in the service: its rank value (lower first) and its id (the tiebreaker). */
export interface Ranked<T> {
  row: T;
  rank: number;
  id: string;
}

/**
 * One keyset page of a ranking held in memory (look-alikes): rows strictly after `after` in (rank, id) order. The
 * ranking must already be in that order.
 */
export function rankedPage<T>(ranking: readonly Ranked<T>[], limit: number, after: SortKey | undefined): KeysetPage<T> {
  const start = after
    ? ranking.findIndex((r) => r.rank > Number(after.value) || (r.rank === Number(after.value) && r.id > after.id))
    : 0;
  const rows = start < 0 ? [] : ranking.slice(start, start + limit);
  const last = rows.at(-1);
  return {
    rows: rows.map((r) => r.row),
    hasMore: start >= 0 && start + limit < ranking.length,
    lastKey: last ? { value: last.rank, id: last.id } : null,
  };
}
