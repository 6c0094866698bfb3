import { buildOrder, MOVING_SORTS, type MovingOrder, type MovingSort, type OrderedColumns, patchOrder, sortValueOf, walkOrder } from '../../../src/store/sqlite/sort-orders';
import { localAlloc } from '../../../src/store/sqlite/typed-alloc';

/**
 * decisions/0020: an order by a moving value is a base and the positions moved since. Batches of changed values and
 * new ads patch it; every version walks as a full sort of its own columns would, and keeps doing so after later
 * batches patched newer versions (readers of an older publication keep reading theirs).
 */
describe('orders by a moving value, patched per batch', () => {
  /** A small LCG: the same columns and batches on every run. */
  const random = (seed: number) => () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };

  /** Columns with few distinct values (many ties: the id rank decides), ids ranked at random. */
  function columns(n: number, next: () => number): OrderedColumns {
    const ranks = Array.from({ length: n }, (_, i) => i).sort(() => next() - 0.5);
    const c: OrderedColumns = {
      n,
      first: new Int32Array(n),
      last: new Int32Array(n),
      activity: new Int32Array(n),
      popularity: new Float64Array(n),
      impressions: new Float64Array(n),
      idRank: Int32Array.from(ranks),
    };
    for (let p = 0; p < n; p++) setValues(c, p, next);
    return c;
  }

  function setValues(c: OrderedColumns, p: number, next: () => number): void {
    c.first[p] = 100 + Math.floor(next() * 5);
    c.last[p] = (c.first[p] ?? 0) + Math.floor(next() * 30);
    c.activity[p] = Math.floor(next() * 20);
    c.popularity[p] = Math.floor(next() * 50) / 10;
    c.impressions[p] = Math.floor(next() * 1000);
  }

  /**
   * The next version: a copy (the previous one stays as it was), `changed` positions given new values, `added` new
   * positions at the end whose ids rank among the others (every rank at or above a new one's moves up, as the live
   * columns' ranks do).
   */
  function nextVersion(c: OrderedColumns, changed: number[], added: number, next: () => number): OrderedColumns {
    const n = c.n + added;
    const grown = <A extends Int32Array | Float64Array>(a: A, make: new (length: number) => A): A => {
      const out = new make(n);
      out.set(a as never);
      return out;
    };
    const out: OrderedColumns = {
      n,
      first: grown(c.first, Int32Array),
      last: grown(c.last, Int32Array),
      activity: grown(c.activity, Int32Array),
      popularity: grown(c.popularity, Float64Array),
      impressions: grown(c.impressions, Float64Array),
      idRank: grown(c.idRank, Int32Array),
    };
    for (const p of changed) setValues(out, p, next);
    for (let p = c.n; p < n; p++) {
      const rank = Math.floor(next() * (p + 1));
      for (let q = 0; q < p; q++) if ((out.idRank[q] ?? 0) >= rank) out.idRank[q] = (out.idRank[q] ?? 0) + 1;
      out.idRank[p] = rank;
      setValues(out, p, next);
    }
    return out;
  }

  /** Every position in ascending (value, id rank) order, by a full sort. */
  const sorted = (c: OrderedColumns, sort: MovingSort) =>
    Array.from({ length: c.n }, (_, p) => p).sort((a, b) => sortValueOf(c, sort, a) - sortValueOf(c, sort, b) || (c.idRank[a] ?? 0) - (c.idRank[b] ?? 0));

  const walked = (order: MovingOrder, c: OrderedColumns, sort: MovingSort, descending: boolean, after?: { value: number; idRank: number }, limit = Infinity) => {
    const out: number[] = [];
    walkOrder(order, c, sort, descending, after, (p) => {
      out.push(p);
      return out.length < limit;
    });
    return out;
  };

  /** Walks every way asked of an order: whole, both directions, and pages after keysets at and between positions. */
  function expectWalks(order: MovingOrder, c: OrderedColumns, sort: MovingSort, next: () => number): void {
    const all = sorted(c, sort);
    expect(walked(order, c, sort, false)).toEqual(all);
    expect(walked(order, c, sort, true)).toEqual([...all].reverse());
    for (let k = 0; k < 8; k++) {
      const i = Math.floor(next() * all.length);
      const p = all[i] ?? 0;
      // At a position: the page strictly after it; between two: a value no position has (a rank past every one).
      const after = k % 2 ? { value: sortValueOf(c, sort, p), idRank: c.idRank[p] ?? 0 } : { value: sortValueOf(c, sort, p), idRank: c.n + 1 };
      const ascending = all.filter((q) => sortValueOf(c, sort, q) > after.value || (sortValueOf(c, sort, q) === after.value && (c.idRank[q] ?? 0) > after.idRank));
      const descending = all.filter((q) => sortValueOf(c, sort, q) < after.value || (sortValueOf(c, sort, q) === after.value && (c.idRank[q] ?? 0) < after.idRank)).reverse();
      expect(walked(order, c, sort, false, after, 25)).toEqual(ascending.slice(0, 25));
      expect(walked(order, c, sort, true, after, 25)).toEqual(descending.slice(0, 25));
    }
  }

  it.each(MOVING_SORTS)('walks %s as a full sort would, in every version, after merging into new bases', (sort) => {
    const next = random(7);
    let c = columns(8_000, next);
    let order = buildOrder(c, sort, localAlloc);
    const versions: { c: OrderedColumns; order: MovingOrder }[] = [{ c, order }];
    let rebases = 0;
    for (let batch = 0; batch < 24; batch++) {
      // Positions changed in place, some of them changed by an earlier batch already (moved, or new then).
      const changed = Array.from({ length: 300 }, () => Math.floor(next() * c.n));
      const n0 = c.n;
      c = nextVersion(c, changed, 40, next);
      const patched = patchOrder(order, c, sort, changed, n0, localAlloc);
      if (patched.base !== order.base) rebases++;
      else expect(patched.left).not.toBeNull();
      order = patched;
      versions.push({ c, order });
      if (batch % 6 === 5) expectWalks(order, c, sort, next);
    }
    // 300 changes and 40 new ads a batch: the moved list passes 4,096 positions (its floor) about every 12 batches, so the 24 batches merge at least once.
    expect(rebases).toBeGreaterThanOrEqual(1);
    for (const version of versions) expectWalks(version.order, version.c, sort, next);
  });
});
