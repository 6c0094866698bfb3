import { HASH_BITS, HASH_WORDS, hammingDistanceWithin, hashWords } from './perceptual-hash';

/**
 * Two pictures are near duplicates when their perceptual hashes differ in at most this many of HASH_BITS bits.
 * Measured on the demo creatives (test/media/lookalikes.spec.ts): recuts (2% crop, recolour, new headline) differ by
 * up to about 50 bits, unrelated designs by 76 or more.
 */
export const NEAR_DUPLICATE_DISTANCE = 64;

/** Similarity of two pictures from their distance: 1 identical, 0 as different as two random pictures can be apart. */
export function similarityOf(distance: number): number {
  return Math.round((1 - distance / HASH_BITS) * 1000) / 1000;
}

export interface HashMatch {
  id: string;
  distance: number;
}

/**
 * Every picture hash of a set, packed into one typed array, scanned whole for one query: at 350,000 creatives (the
 * 1M-ad demo) that is 2.8 M word comparisons, a few milliseconds, with no index to keep up to date.
 */
export class HashIndex {
  private readonly words: Uint32Array;
  private readonly hashes = new Map<string, string>();

  constructor(private readonly ids: readonly string[], hashes: readonly string[]) {
    this.words = new Uint32Array(ids.length * HASH_WORDS);
    hashes.forEach((hex, i) => {
      this.words.set(hashWords(hex), i * HASH_WORDS);
      this.hashes.set(ids[i] as string, hex);
    });
  }

  /** The hash of an entry, or undefined when the set does not hold it. */
  hashOf(id: string): string | undefined {
    return this.hashes.get(id);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Entries within `maxDistance` of `hash`, nearest first (ties by id). */
  near(hash: string, maxDistance = NEAR_DUPLICATE_DISTANCE): HashMatch[] {
    const query = hashWords(hash);
    const matches: HashMatch[] = [];
    for (let i = 0; i < this.ids.length; i++) {
      const distance = hammingDistanceWithin(query, this.words, i * HASH_WORDS, maxDistance);
      if (distance <= maxDistance) matches.push({ id: this.ids[i] as string, distance });
    }
    return matches.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
