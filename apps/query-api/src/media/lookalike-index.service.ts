import { Inject, Injectable } from '@nestjs/common';
import { AD_STORE, type AdStore } from '../store/ad-store.port';
import { HashIndex } from './lookalikes';

/** How old the index may be before a query rebuilds it (live batches add creatives; their look-alikes follow). */
const REFRESH_MS = 60_000;

/**
 * The look-alike index of every creative's first picture, built from the store (both engines answer
 * `creativePictureHashes`) and kept in memory. A query after REFRESH_MS starts a rebuild and is answered from the
 * index it has meanwhile, so only the very first query waits for a build.
 */
@Injectable()
export class LookalikeIndex {
  private current: { index: HashIndex; at: number } | null = null;
  private building: Promise<HashIndex> | null = null;

  constructor(@Inject(AD_STORE) private readonly store: AdStore) {}

  async index(): Promise<HashIndex> {
    if (this.current && Date.now() - this.current.at < REFRESH_MS) return this.current.index;
    const build = this.build();
    if (!this.current) return build;
    // A failed rebuild in the background keeps the index it had; the next query after REFRESH_MS tries again.
    build.catch(() => undefined);
    return this.current.index;
  }

  private build(): Promise<HashIndex> {
    this.building ??= this.store
      .creativePictureHashes()
      .then((hashes) => {
        const index = new HashIndex(
          hashes.map((h) => h.id),
          hashes.map((h) => h.phash),
        );
        this.current = { index, at: Date.now() };
        return index;
      })
      .finally(() => {
        this.building = null;
      });
    return this.building;
  }
}
