import { type Alloc, at } from './typed-alloc';

/**
 * Id ranks: the tiebreaker of every sort of the columns (`AdColumns.idRank`). Only their order means anything, so they
 * are spread over the 32-bit range with gaps between neighbours (decisions/0020): a live batch's new ids take ranks in
 * the gaps around them and no stored rank moves. A merge numbers every id again; a gap with no room left spreads every
 * rank again (rare: a gap holds thousands at 1M ads).
 */
const RANK_MIN = -(2 ** 31);
const RANK_SPAN = 2 ** 32;

/** The gap between neighbours when `count` ranks are spread evenly (with as much room below the first and above the last). */
export const rankGap = (count: number) => Math.floor(RANK_SPAN / (count + 2));

/** The i-th rank of ranks spread `gap` apart. */
export const spreadRank = (i: number, gap: number) => RANK_MIN + gap * (i + 1);

/**
 * `count` ranks in ascending order strictly between `low` and `high` (null: no neighbour on that side), at most `gap`
 * apart (so ids past the last one, as new ids often are, use up the open end no faster than a spread would); null when
 * they do not fit.
 */
export function ranksBetween(low: number | null, high: number | null, count: number, gap: number): number[] | null {
  const lo = low ?? RANK_MIN - 1;
  const hi = high ?? RANK_MIN + RANK_SPAN;
  const step = Math.min(Math.floor((hi - lo) / (count + 1)), gap);
  if (step < 1) return null;
  // With a neighbour above only, the ranks hug it: the room below stays open for ids below them.
  return Array.from({ length: count }, (_, i) => (low === null && high !== null ? hi - step * (count - i) : lo + step * (i + 1)));
}

/** Positions 0..n-1 in ascending rank order (a comparison sort: once per merge, or when a gap is used up). */
export function inRankOrder(idRank: Int32Array, n: number): Int32Array {
  const positions = new Int32Array(n);
  for (let p = 0; p < n; p++) positions[p] = p;
  return positions.sort((a, b) => at(idRank, a) - at(idRank, b));
}

/**
 * The ranks of positions 0..n-1 spread evenly again, in the same order: a new array (readers of the previous columns
 * keep theirs) with room for the tail to grow into.
 */
export function respread(idRank: Int32Array, n: number, alloc: Alloc): Int32Array {
  const ranks = alloc(Int32Array, Math.ceil(n * 1.25) + 1024).subarray(0, n);
  const gap = rankGap(n);
  inRankOrder(idRank, n).forEach((p, i) => (ranks[p] = spreadRank(i, gap)));
  return ranks;
}
