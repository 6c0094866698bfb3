import { at } from './typed-alloc';

/**
 * Each word's bitset as a view into one buffer, in the order given, `stride` words of 32 bits apart (one block to
 * share), `length` words long (the columns' positions; the stride may leave room to grow: WordBitsBuffers).
 */
export function wordBitsIn(buffer: Uint32Array, words: string[], stride: number, length = stride): Map<string, Uint32Array> {
  return new Map(words.map((word, i) => [word, buffer.subarray(i * stride, i * stride + length)]));
}

/** ORs bits [src, src + len) of `from` into `to` from bit `dst` on, in pieces that stay within one word of each. */
export function copyBits(from: Uint32Array, src: number, to: Uint32Array, dst: number, len: number): void {
  let i = 0;
  if ((src & 31) === 0 && (dst & 31) === 0 && len >= 32) {
    // Aligned alike (a run that does not move, as a tail batch's): whole words at once.
    const words = len >>> 5;
    to.set(from.subarray(src >>> 5, (src >>> 5) + words), dst >>> 5);
    i = words << 5;
  }
  for (; i < len; ) {
    const s = src + i;
    const d = dst + i;
    const take = Math.min(32 - (s & 31), 32 - (d & 31), len - i);
    const mask = take === 32 ? 0xffffffff : (1 << take) - 1;
    const piece = (at(from, s >>> 5) >>> (s & 31)) & mask;
    if (piece !== 0) to[d >>> 5] = at(to, d >>> 5) | (piece << (d & 31));
    i += take;
  }
}
