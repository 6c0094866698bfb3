import type { AdColumns } from './ad-columns';
import { type Alloc, type TypedArray, type TypedArrayOf } from './typed-alloc';
import { copyBits, wordBitsIn } from './word-bits';

/** The ad columns a re-sighting moves in place (live-columns.ts, `moves`). */
export const MOVING_COLUMNS = ['activity', 'popularity', 'impressions', 'last', 'active', 'destination'] as const;
export type MovingColumn = (typeof MOVING_COLUMNS)[number];
type MovingArrays = Pick<AdColumns, MovingColumn>;

/**
 * The live writer's buffers of the moving columns, used again (decisions/0020). A tail batch builds the next version
 * of each moving column from the current one: in the buffers of the version before it, brought up to date by the
 * positions the current one changed, once no reader can be reading that version (readers pin the oldest version they
 * may read: shared-columns.ts); otherwise in new buffers, with room to grow, as a copy. Readers of a version keep
 * theirs either way: a buffer is written only when no reader can be on its version.
 */
export class MovingBuffers {
  /**
   * The buffers of an earlier version `seq` (whole, with their room), and what changed from it to version `upTo`:
   * positions in place, and the new positions [from, to).
   */
  private spare: { seq: number; upTo: number; arrays: MovingArrays; changed: readonly number[]; from: number; to: number } | null = null;
  /** Versions built in buffers used again, and in new ones: tests and the benchmark read them. */
  reused = 0;
  copied = 0;

  /** `oldestRead`: the oldest version a reader may be reading now (Infinity: none). */
  constructor(
    private readonly alloc: Alloc,
    private readonly oldestRead: () => number,
  ) {}

  /**
   * Arrays `n` long for the version after `current` (version `seq`), holding at every position of `current` its value;
   * positions past them are for the caller to fill, as are those its batch changes.
   */
  next(seq: number, current: MovingArrays, n: number): MovingArrays {
    const spare = this.spare;
    const usable = spare && spare.upTo === seq && this.oldestRead() > spare.seq && MOVING_COLUMNS.every((name) => spare.arrays[name].length >= n);
    if (usable) this.reused++;
    else this.copied++;
    const build = <K extends MovingColumn>(name: K, make: TypedArrayOf<AdColumns[K]>): AdColumns[K] => {
      const from = current[name];
      if (!usable) {
        const room = this.alloc(make, Math.ceil(n * 1.25) + 1024);
        room.set(from as never);
        return room.subarray(0, n) as AdColumns[K];
      }
      const out = spare.arrays[name].subarray(0, n) as AdColumns[K];
      for (const p of spare.changed) out[p] = from[p] ?? 0;
      out.set(from.subarray(spare.from, spare.to) as never, spare.from);
      return out;
    };
    return {
      activity: build('activity', Int32Array),
      popularity: build('popularity', Float64Array),
      impressions: build('impressions', Float64Array),
      last: build('last', Int32Array),
      active: build('active', Uint8Array),
      destination: build('destination', Uint8Array),
    };
  }

  /**
   * After version `seq` was built from `previous` (version `previousSeq`): its buffers are the spare, with what changed
   * from it to version `seq` (positions in place, and the new positions [from, to)).
   */
  keep(previousSeq: number, previous: MovingArrays, seq: number, changed: readonly number[], from: number, to: number): void {
    // The whole buffer behind each array (a version's arrays are its first n values).
    const whole = <A extends TypedArray>(a: A, make: TypedArrayOf<A>): A => (a.byteOffset === 0 ? new make(a.buffer, 0, a.buffer.byteLength / make.BYTES_PER_ELEMENT) : a);
    const arrays: MovingArrays = {
      activity: whole(previous.activity, Int32Array),
      popularity: whole(previous.popularity, Float64Array),
      impressions: whole(previous.impressions, Float64Array),
      last: whole(previous.last, Int32Array),
      active: whole(previous.active, Uint8Array),
      destination: whole(previous.destination, Uint8Array),
    };
    this.spare = { seq: previousSeq, upTo: seq, arrays, changed, from, to };
  }

  /** Forgets the spare: the next version is a copy (after a merge or a load, whose positions are others). */
  reset(): void {
    this.spare = null;
  }
}

/**
 * The live writer's word bitsets (one buffer, a bitset per word `stride` words of 32 bits apart) used again by the
 * same rule as the moving columns': a tail batch sets bits of its new positions only, so the buffer of the version
 * before the previous one is brought up to date by the bits of the positions the previous batch added. The stride
 * leaves room to grow; a version's bitsets are its first (n + 31) / 32 words of each.
 */
export class WordBitsBuffers {
  private spare: { seq: number; upTo: number; buffer: Uint32Array; stride: number; from: number; to: number } | null = null;

  constructor(
    private readonly alloc: Alloc,
    private readonly oldestRead: () => number,
  ) {}

  /**
   * The bitsets for the version after `current` (version `seq`), `n` positions long, holding every bit of `current`;
   * the bits of new positions are for the caller to set.
   */
  next(seq: number, current: ReadonlyMap<string, Uint32Array>, n: number): { bits: Map<string, Uint32Array>; stride: number } {
    const length = (n + 31) >>> 5;
    const words = [...current.keys()];
    const spare = this.spare;
    if (spare && spare.upTo === seq && this.oldestRead() > spare.seq && spare.stride >= length) {
      const bits = wordBitsIn(spare.buffer, words, spare.stride, length);
      for (const [word, from] of current) {
        const to = bits.get(word);
        if (to) copyBits(from, spare.from, to, spare.from, spare.to - spare.from);
      }
      return { bits, stride: spare.stride };
    }
    const room = (Math.ceil(n * 1.25) + 1024 + 31) >>> 5;
    const bits = wordBitsIn(this.alloc(Uint32Array, room * words.length), words, room, length);
    for (const [word, from] of current) bits.get(word)?.set(from);
    return { bits, stride: room };
  }

  /** After the version `seq` was built from `previous` (version `previousSeq`), which added positions [from, to). */
  keep(previousSeq: number, previous: ReadonlyMap<string, Uint32Array>, stride: number, seq: number, from: number, to: number): void {
    const [first] = previous.values();
    this.spare = first && first.byteOffset === 0 ? { seq: previousSeq, upTo: seq, buffer: new Uint32Array(first.buffer), stride, from, to } : null;
  }

  reset(): void {
    this.spare = null;
  }
}
