import type { AdSort } from '@adintel/contracts';
import type { AdColumns } from './ad-columns';
import { type Alloc, at } from './typed-alloc';

/**
 * The sorts on values a sighting moves (days active, activity days, popularity, impressions). SQLite keeps no index on
 * them (an index entry per moved value was a third of the pages a live batch wrote: decisions/0019); the columns keep
 * an order of the positions by each instead, patched by the live writer per batch, so a sorted search walks it and
 * stops after a page, as it walks positions by date.
 */
export const MOVING_SORTS = ['days_active', 'activity_days_amount', 'most_popular', 'impressions'] as const satisfies readonly AdSort[];
export type MovingSort = (typeof MOVING_SORTS)[number];

export const isMovingSort = (sort: AdSort): sort is MovingSort => (MOVING_SORTS as readonly AdSort[]).includes(sort);

/**
 * The positions in ascending (sort value, id rank) order of one moving sort, as a base sorted once and the positions
 * that moved since, kept sorted apart (decisions/0020): a live batch moves a few hundred values of a million, so it
 * merges its positions into the short list and marks their places in the base as left, instead of copying the whole
 * order. Every part of a version is immutable once published (readers of an older version keep reading theirs).
 */
export interface MovingOrder {
  /** The positions the base was sorted over, in order of the values they had then. */
  base: Int32Array;
  /** Positions whose values moved since the base was sorted, and positions added since, in order of their values now. */
  moved: Int32Array;
  /** One bit per base position: set when it left its place in the base for `moved` (null: none has). */
  left: Uint32Array | null;
}

export type SortOrders = Record<MovingSort, MovingOrder>;

/** What an order reads of the columns: the values sorted on and the id ranks that break ties. */
export type OrderedColumns = Pick<AdColumns, 'n' | 'first' | 'last' | 'activity' | 'popularity' | 'impressions' | 'idRank'>;

/** The value an ad is sorted by (dates as day numbers). */
export function sortValueOf(c: OrderedColumns, sort: AdSort, p: number): number {
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
function before(c: OrderedColumns, sort: MovingSort): (a: number, b: number) => number {
  return (a, b) => sortValueOf(c, sort, a) - sortValueOf(c, sort, b) || (c.idRank[a] ?? 0) - (c.idRank[b] ?? 0);
}

/** Every position in order of one sort (a comparison sort: about 0.25 s at 1M ads, once per merge, load or rebase). */
export function buildOrder(c: OrderedColumns, sort: MovingSort, alloc: Alloc): MovingOrder {
  const base = alloc(Int32Array, c.n);
  for (let p = 0; p < c.n; p++) base[p] = p;
  return { base: base.sort(before(c, sort)), moved: alloc(Int32Array, 0), left: null };
}

/** Whether a position of the base still stands at its place there. */
const standsIn = (left: Uint32Array | null) => (left ? (p: number) => (at(left, p >>> 5) & (1 << (p & 31))) === 0 : null);

/**
 * The order after a batch that moved no position (the columns' tail path), over the columns after it (`c`): `changed`
 * are positions whose values the batch changed, positions n0..c.n - 1 its new ads. They are sorted (k log k) and merged
 * into the moved list, which the same positions leave first; the base's bits are a copy with theirs set (n / 8 bytes).
 * The rest keep their places: their values did not move, nor did their id ranks (id-ranks.ts). When the
 * moved list outgrows an eighth of the base, both are merged into a new base (a copy of the order, once per many
 * batches), so a walk skips at most that share of the base.
 */
export function patchOrder(order: MovingOrder, c: OrderedColumns, sort: MovingSort, changed: readonly number[], n0: number, alloc: Alloc): MovingOrder {
  const cmp = before(c, sort);
  const again = new Set(changed);
  const incoming = [...again];
  for (let p = n0; p < c.n; p++) incoming.push(p);
  incoming.sort(cmp);
  const { base, moved: was } = order;
  const stands = standsIn(order.left);
  const leaving = incoming.filter((p) => p < base.length && (!stands || stands(p)));
  let left = order.left;
  if (leaving.length) {
    left = alloc(Uint32Array, (base.length + 31) >>> 5);
    if (order.left) left.set(order.left);
    for (const p of leaving) left[p >>> 5] = at(left, p >>> 5) | (1 << (p & 31));
  }
  let staying = 0;
  for (const p of was) if (!again.has(p)) staying++;
  const moved = alloc(Int32Array, staying + incoming.length);
  // The moved list's positions the batch moved again hold their new values: skipped before any comparison.
  let i = 0;
  const nextStaying = () => {
    while (i < was.length && again.has(at(was, i))) i++;
    return i < was.length;
  };
  let to = 0;
  for (const p of incoming) {
    while (nextStaying() && cmp(at(was, i), p) < 0) moved[to++] = at(was, i++);
    moved[to++] = p;
  }
  while (nextStaying()) moved[to++] = at(was, i++);
  const patched = { base, moved, left };
  return moved.length > Math.max(REBASE_AT_LEAST, base.length >>> 3) ? rebased(patched, c, sort, alloc) : patched;
}

/** The moved list's length below which an order is never merged into a new base (small stores would merge every batch). */
const REBASE_AT_LEAST = 4096;

/** The same order as one base: the standing base positions and the moved ones merged (a copy of the order). */
function rebased(order: MovingOrder, c: OrderedColumns, sort: MovingSort, alloc: Alloc): MovingOrder {
  const base = alloc(Int32Array, c.n);
  let to = 0;
  walkOrder(order, c, sort, false, undefined, (p) => {
    base[to++] = p;
    return true;
  });
  return { base, moved: alloc(Int32Array, 0), left: null };
}

/**
 * Visits the positions in order (descending: from the last), strictly after `after` (its value and id rank) when
 * given, until `visit` returns false: the base's standing positions and the moved ones, merged as they are walked.
 */
export function walkOrder(
  order: MovingOrder,
  c: OrderedColumns,
  sort: MovingSort,
  descending: boolean,
  after: { value: number; idRank: number } | undefined,
  visit: (p: number) => boolean,
): void {
  const { base, moved } = order;
  const stands = standsIn(order.left);
  const cmp = before(c, sort);
  const step = descending ? -1 : 1;
  let i = walkStart(base, c, sort, descending, after, stands);
  let j = walkStart(moved, c, sort, descending, after, null);
  for (;;) {
    if (stands) while (i >= 0 && i < base.length && !stands(at(base, i))) i += step;
    const inBase = i >= 0 && i < base.length;
    const inMoved = j >= 0 && j < moved.length;
    if (!inBase && !inMoved) return;
    // Two positions never compare equal: their id ranks differ.
    const fromBase = inBase && (!inMoved || cmp(at(base, i), at(moved, j)) < 0 !== descending);
    const p = fromBase ? at(base, i) : at(moved, j);
    if (fromBase) i += step;
    else j += step;
    if (!visit(p)) return;
  }
}

/**
 * Where a walk of `order` starts: ascending, the first index whose (value, id rank) comes after `after`; descending,
 * the last one before it. Without `after`, the first (or last) index.
 */
function walkStart(
  order: Int32Array,
  c: OrderedColumns,
  sort: MovingSort,
  descending: boolean,
  after: { value: number; idRank: number } | undefined,
  stands: ((p: number) => boolean) | null,
): number {
  if (!after) return descending ? order.length - 1 : 0;
  // The number of positions at or before `after` in ascending order (ascending starts there; descending one before),
  // counting only positions that stand (the base's that left it sit where their old values put them).
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let m = mid;
    if (stands) while (m < hi && !stands(at(order, m))) m++;
    if (m === hi) {
      hi = mid;
      continue;
    }
    const p = at(order, m);
    const v = sortValueOf(c, sort, p);
    const r = c.idRank[p] ?? 0;
    const atOrBefore = descending ? v < after.value || (v === after.value && r < after.idRank) : v < after.value || (v === after.value && r <= after.idRank);
    if (atOrBefore) lo = m + 1;
    else hi = mid;
  }
  return descending ? lo - 1 : lo;
}
