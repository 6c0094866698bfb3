import type { AdSort } from '@adintel/contracts';
import type { AdColumns } from './ad-columns';
import type { Alloc } from './typed-alloc';

/**
 * The sorts on values a sighting moves (days active, activity days, popularity, impressions). SQLite keeps no index on
 * them (an index entry per moved value was a third of the pages a live batch wrote: decisions/0019); the columns keep
 * an order of the positions by each instead, patched by the live writer per batch, so a sorted search walks it and
 * stops after a page, as it walks positions by date.
 */
export const MOVING_SORTS = ['days_active', 'activity_days_amount', 'most_popular', 'impressions'] as const satisfies readonly AdSort[];
export type MovingSort = (typeof MOVING_SORTS)[number];

export const isMovingSort = (sort: AdSort): sort is MovingSort => (MOVING_SORTS as readonly AdSort[]).includes(sort);

/** Positions in ascending (sort value, id rank) order, one array per moving sort. */
export type SortOrders = Record<MovingSort, Int32Array>;

/** The value an ad is sorted by (dates as day numbers). */
export function sortValueOf(c: AdColumns, sort: AdSort, p: number): number {
  switch (sort) {
    case 'date':
      return c.first[p] ?? 0;
    case 'days_active':
      return (c.last[p] ?? 0) - (c.first[p] ?? 0);
    case 'activity_days_amount':
      return c.activity[p] ?? 0;
    case 'most_popular':
      return c.popularity[p] ?? 0;
    case 'impressions':
      return c.impressions[p] ?? 0;
  }
}

/** Compares two positions in ascending (value, id rank) order. */
function before(c: AdColumns, sort: MovingSort): (a: number, b: number) => number {
  return (a, b) => sortValueOf(c, sort, a) - sortValueOf(c, sort, b) || (c.idRank[a] ?? 0) - (c.idRank[b] ?? 0);
}

/** Every position in order of one sort (a comparison sort: about 0.25 s at 1M ads, once per merge or load). */
export function buildOrder(c: AdColumns, sort: MovingSort, alloc: Alloc): Int32Array {
  const order = alloc(Int32Array, c.n);
  for (let p = 0; p < c.n; p++) order[p] = p;
  return order.sort(before(c, sort));
}

/**
 * The order after a batch that moved no position (the columns' tail path): `order` ranks the first `n0` positions by
 * their values before it (`old`, the previous columns); `moved` are positions whose values the batch changed, and
 * positions n0..c.n - 1 are the batch's new ads. The rest keep their places (their values did not move, and id ranks
 * shifted by a batch keep their order), so they are copied in runs and the batch's positions, sorted, merged in by
 * binary search: about n copies and k log n comparisons, not a sort.
 */
export function patchOrder(
  order: Int32Array,
  old: AdColumns,
  c: AdColumns,
  sort: MovingSort,
  moved: readonly number[],
  n0: number,
  alloc: Alloc,
): Int32Array {
  const cmp = before(c, sort);
  const inserts = [...new Set(moved)];
  const { kept } = scratchFor(n0);
  const keptLength = withoutMoved(order, before(old, sort), inserts, kept);
  for (let p = n0; p < c.n; p++) inserts.push(p);
  inserts.sort(cmp);
  const out = alloc(Int32Array, c.n);
  let from = 0;
  let to = 0;
  for (const p of inserts) {
    let lo = from;
    let hi = keptLength;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(kept[mid] ?? 0, p) < 0) lo = mid + 1;
      else hi = mid;
    }
    out.set(kept.subarray(from, lo), to);
    to += lo - from;
    out[to++] = p;
    from = lo;
  }
  out.set(kept.subarray(from, keptLength), to);
  return out;
}

/**
 * `order` without the `moved` positions, into `kept`; its length. Each moved position is found where the previous
 * columns' values put it (`wasBefore`, the order `order` is sorted by: a binary search each) and the runs between them
 * are copied whole, so the cost is k log n comparisons and a copy, not a test of every position (at 1M ads, four orders
 * a batch, that test was about 5 % of the writer's profile).
 */
function withoutMoved(order: Int32Array, wasBefore: (a: number, b: number) => number, moved: readonly number[], kept: Int32Array): number {
  const at: number[] = [];
  for (const p of moved) {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (wasBefore(order[mid] ?? 0, p) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (order[lo] !== p) throw new Error(`position ${p} is not where its previous values put it in the ${order.length}-position order`);
    at.push(lo);
  }
  at.sort((a, b) => a - b);
  let length = 0;
  let from = 0;
  for (const i of at) {
    kept.set(order.subarray(from, i), length);
    length += i - from;
    from = i + 1;
  }
  kept.set(order.subarray(from), length);
  return length + order.length - from;
}

/**
 * The work array of patchOrder, kept between calls (a batch patches four orders of a million positions: fresh ones each
 * time were most of what it allocated).
 */
let scratch = { kept: new Int32Array(0) };
function scratchFor(n: number): typeof scratch {
  if (scratch.kept.length < n) scratch = { kept: new Int32Array(Math.ceil(n * 1.25)) };
  return scratch;
}

/**
 * Where a walk of `order` starts: ascending, the first index whose (value, id rank) comes after `after`; descending,
 * the last one before it. Without `after`, the first (or last) index.
 */
export function walkStart(order: Int32Array, c: AdColumns, sort: MovingSort, descending: boolean, after: { value: number; idRank: number } | undefined): number {
  if (!after) return descending ? order.length - 1 : 0;
  // The number of positions at or before `after` in ascending order (ascending starts there; descending one before).
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const p = order[mid] ?? 0;
    const v = sortValueOf(c, sort, p);
    const r = c.idRank[p] ?? 0;
    const atOrBefore = descending ? v < after.value || (v === after.value && r < after.idRank) : v < after.value || (v === after.value && r <= after.idRank);
    if (atOrBefore) lo = mid + 1;
    else hi = mid;
  }
  return descending ? lo - 1 : lo;
}
