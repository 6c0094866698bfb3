import { inRankOrder, rankGap, ranksBetween, respread } from '../../../src/store/sqlite/id-ranks';
import { localAlloc } from '../../../src/store/sqlite/typed-alloc';

/** decisions/0020: id ranks with gaps, so new ids fit between their neighbours and no stored rank moves. */
describe('id ranks', () => {
  const ascending = (xs: number[]) => xs.every((x, i) => i === 0 || x > (xs[i - 1] ?? 0));
  const int32 = (x: number) => Number.isInteger(x) && x >= -(2 ** 31) && x < 2 ** 31;

  it('fit new ranks strictly between two neighbours, or say they do not', () => {
    const between = ranksBetween(10, 20, 3, 1000) ?? [];
    expect(between).toHaveLength(3);
    expect(ascending([10, ...between, 20])).toBe(true);
    expect(ranksBetween(10, 14, 3, 1000)).toEqual([11, 12, 13]);
    expect(ranksBetween(10, 14, 4, 1000)).toBeNull();
    expect(ranksBetween(10, 11, 1, 1000)).toBeNull();
  });

  it('take the open ends no faster than a gap apart, within 32 bits', () => {
    const gap = rankGap(1000);
    const above = ranksBetween(5, null, 4, gap) ?? [];
    expect(above).toEqual([5 + gap, 5 + 2 * gap, 5 + 3 * gap, 5 + 4 * gap]);
    const below = ranksBetween(null, 5, 4, gap) ?? [];
    expect(below).toEqual([5 - 4 * gap, 5 - 3 * gap, 5 - 2 * gap, 5 - gap]);
    const alone = ranksBetween(null, null, 3, rankGap(3)) ?? [];
    expect(ascending(alone) && alone.every(int32)).toBe(true);
    // The top of the range used up: no room above the largest rank.
    expect(ranksBetween(2 ** 31 - 1, null, 1, gap)).toBeNull();
  });

  it('spread again in the same order, with the tail room and the gaps back', () => {
    // Dense ranks, as a full load numbers them: no room between neighbours until spread.
    const dense = Int32Array.from([3, 0, 4, 1, 2]);
    expect(ranksBetween(dense[3] ?? 0, dense[4] ?? 0, 1, rankGap(5))).toBeNull();
    const spread = respread(dense, 5, localAlloc);
    expect([...inRankOrder(spread, 5)]).toEqual([...inRankOrder(dense, 5)]);
    expect([...spread].every(int32)).toBe(true);
    expect(ranksBetween(spread[3] ?? 0, spread[4] ?? 0, 1000, rankGap(5))).toHaveLength(1000);
    expect(spread.buffer.byteLength).toBeGreaterThan(5 * Int32Array.BYTES_PER_ELEMENT);
  });
});
