import { type Grouped, groupRange } from '../../../src/store/sqlite/columnar-search';
import { addToGrouped, relaidByRank } from '../../../src/store/sqlite/grouped-tail';
import { localAlloc } from '../../../src/store/sqlite/typed-alloc';

/**
 * decisions/0020: a grouping of positions by key takes a live tail batch's entries into a short list beside it, folded
 * into a new grouping once that list outgrows an eighth of it. Every version looks up as the entries it was given
 * would, grouped from scratch, and keeps doing so after later batches (readers of an older version keep theirs).
 */
describe('groupings of positions by key, added to per batch', () => {
  const random = (seed: number) => () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };

  /** Each key's positions, ascending, from the entries given: what every lookup must return. */
  const expected = (entries: [number, number][], size: number) => {
    const byKey: number[][] = Array.from({ length: size }, () => []);
    for (const [key, position] of entries) byKey[key]?.push(position);
    return byKey.map((positions) => positions.sort((a, b) => a - b));
  };
  const lookup = (g: Grouped, from: number, to: number) => {
    const { grouped, tail, length } = groupRange(g, from, to);
    expect(length).toBe(grouped.length + tail.length);
    return [...grouped, ...tail];
  };

  /** Grouped from scratch: what a load builds. */
  function built(entries: [number, number][], size: number): Grouped {
    const byKey = expected(entries, size);
    const offsets = new Int32Array(size + 1);
    byKey.forEach((positions, k) => (offsets[k + 1] = (offsets[k] ?? 0) + positions.length));
    return { positions: Int32Array.from(byKey.flat()), offsets, tail: null };
  }

  it('every version looks up each key and each range of keys as a grouping from scratch would, across folds', () => {
    const next = random(3);
    let size = 50;
    let n = 20_000;
    const entries: [number, number][] = Array.from({ length: n }, (_, p) => [Math.floor(next() * size), p]);
    let g = built(entries, size);
    const versions: { g: Grouped; entries: [number, number][]; size: number }[] = [{ g, entries: [...entries], size }];
    let folds = 0;
    for (let batch = 0; batch < 36; batch++) {
      // New keys come in now and then; some positions have no key (-1: an ad with no app, say).
      if (batch % 4 === 0) size += 3;
      const added: [number, number][] = Array.from({ length: 150 }, (_, i) => [next() < 0.1 ? -1 : Math.floor(next() * size), n + i]);
      n += added.length;
      const patched = addToGrouped(g, size, added, localAlloc);
      if (patched.positions !== g.positions) folds++;
      g = patched;
      entries.push(...added.filter(([key]) => key >= 0));
      versions.push({ g, entries: [...entries], size });
    }
    // 150 entries a batch: the tail passes 4,096 (its floor) within 36 batches at least once.
    expect(folds).toBeGreaterThanOrEqual(1);
    expect(g.tail?.keys.length ?? 0).toBeGreaterThan(0);
    for (const version of versions) {
      const byKey = expected(version.entries, version.size);
      for (let k = 0; k < version.size; k++) expect(lookup(version.g, k, k + 1)).toEqual(byKey[k]);
      // A range of keys: each part grouped by key (the host ranges' case), the same positions.
      expect(lookup(version.g, 5, 12).sort((a, b) => a - b)).toEqual(byKey.slice(5, 12).flat().sort((a, b) => a - b));
      expect(lookup(version.g, version.size + 1, version.size + 2)).toEqual([]);
    }
  });

  it('a fold keeps the tail entries of every key, those above and below the batch\'s keys too', () => {
    const g = addToGrouped(built([[0, 0], [1, 1], [2, 2], [3, 3]], 4), 4, [[0, 4], [3, 5]], localAlloc);
    // A batch large enough to fold (past the floor of 4,096), all on keys 1 and 2.
    const batch = Array.from({ length: 4_100 }, (_, i): [number, number] => [1 + (i % 2), 6 + i]);
    const folded = addToGrouped(g, 4, batch, localAlloc);
    expect(folded.tail).toBeNull();
    expect(lookup(folded, 0, 1)).toEqual([0, 4]);
    expect(lookup(folded, 3, 4)).toEqual([3, 5]);
    expect(lookup(folded, 1, 2)).toEqual([1, ...batch.filter(([k]) => k === 1).map(([, p]) => p)]);
  });

  it('laid out for new keys among the old ones (hosts by rank), the grouped and the tail positions move to their new keys', () => {
    const entries: [number, number][] = [[0, 0], [2, 1], [1, 2], [2, 3]];
    let g = built(entries, 3);
    g = addToGrouped(g, 3, [[1, 4], [0, 5]], localAlloc);
    // Two new keys: one before old key 1, one at the end. Old keys 0, 1, 2 become 0, 2, 3.
    const relaid = relaidByRank(g, Int32Array.from([0, 2, 3]), 5, localAlloc);
    expect([0, 1, 2, 3, 4].map((k) => lookup(relaid, k, k + 1))).toEqual([[0, 5], [], [2, 4], [1, 3], []]);
    // The version it came from is as it was.
    expect([0, 1, 2].map((k) => lookup(g, k, k + 1))).toEqual([[0, 5], [2, 4], [1, 3]]);
  });
});
