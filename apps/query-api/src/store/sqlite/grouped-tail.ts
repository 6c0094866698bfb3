import { type Grouped, type GroupedTail } from './columnar-search';
import { type Alloc, at } from './typed-alloc';

/** A tail shorter than this is never folded into its grouping (small stores would fold every batch). */
const FOLD_AT_LEAST = 4096;

/**
 * A grouping (positions by key) with a live tail batch's entries [key, position] added, every position past the
 * grouped ones (decisions/0020): merged into the grouping's tail, a copy of the tail and not of the grouping, which
 * readers of the previous version share. When the tail outgrows an eighth of the grouped positions it is folded into a
 * new grouping (a copy, once per many batches), so a lookup's tail part stays short. `size`: the number of keys now.
 */
export function addToGrouped(g: Grouped, size: number, entries: [number, number][], alloc: Alloc): Grouped {
  const incoming = entries.filter(([key]) => key >= 0).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (!incoming.length) return g;
  const was = g.tail ?? { keys: new Int32Array(0), positions: new Int32Array(0) };
  const length = was.keys.length + incoming.length;
  const tail: GroupedTail = { keys: alloc(Int32Array, length), positions: alloc(Int32Array, length) };
  let i = 0;
  let to = 0;
  const take = (key: number, position: number) => {
    tail.keys[to] = key;
    tail.positions[to++] = position;
  };
  // Within a key the tail's positions come before the batch's (every one of the batch's is newer).
  for (const [key, position] of incoming) {
    for (; i < was.keys.length && at(was.keys, i) <= key; i++) take(at(was.keys, i), at(was.positions, i));
    take(key, position);
  }
  for (; i < was.keys.length; i++) take(at(was.keys, i), at(was.positions, i));
  if (length > Math.max(FOLD_AT_LEAST, g.positions.length >>> 3)) return folded(g, size, tail, alloc);
  return { positions: g.positions, offsets: g.offsets, tail };
}

/** The grouping with every entry of `tail` (keys ascending) in it: the keys no entry has are copied in runs. */
function folded(g: Grouped, size: number, tail: GroupedTail, alloc: Alloc): Grouped {
  const { keys, positions: added } = tail;
  const oldKeys = g.offsets.length - 1;
  const oldEnd = (k: number) => at(g.offsets, Math.min(k, oldKeys));
  const offsets = alloc(Int32Array, size + 1);
  let t = 0;
  for (let k = 0; k <= size; k++) {
    offsets[k] = oldEnd(k) + t;
    while (t < keys.length && at(keys, t) === k) t++;
  }
  const positions = alloc(Int32Array, g.positions.length + keys.length);
  let copied = 0;
  let to = 0;
  for (let j = 0; j < keys.length; ) {
    const key = at(keys, j);
    const upto = oldEnd(key + 1);
    positions.set(g.positions.subarray(copied, upto), to);
    to += upto - copied;
    copied = upto;
    for (; j < keys.length && at(keys, j) === key; j++) positions[to++] = at(added, j);
  }
  positions.set(g.positions.subarray(copied), to);
  return { positions, offsets, tail: null };
}

/**
 * A grouping by host rank laid out for the ranks after new hosts came in (each new rank an empty group): new offsets
 * and the tail's keys mapped to the new ranks (`rankOfOld` ascends, so the tail stays in key order); positions shared.
 */
export function relaidByRank(g: Grouped, rankOfOld: Int32Array, size: number, alloc: Alloc): Grouped {
  const offsets = alloc(Int32Array, size + 1);
  let r = 0;
  for (let k = 0; k < rankOfOld.length; k++) {
    const to = at(rankOfOld, k);
    while (r <= to) offsets[r++] = at(g.offsets, k);
  }
  while (r <= size) offsets[r++] = at(g.offsets, rankOfOld.length);
  let tail: GroupedTail | null = null;
  if (g.tail) {
    const keys = alloc(Int32Array, g.tail.keys.length);
    g.tail.keys.forEach((k, i) => (keys[i] = at(rankOfOld, k)));
    tail = { keys, positions: g.tail.positions };
  }
  return { positions: g.positions, offsets, tail };
}
