import { Inject, Injectable } from '@nestjs/common';
import { AD_STORE, type AdStore } from '../store/ad-store.port';
import { HashIndex } from './lookalikes';
import { PictureQueue } from './picture-queue';

/** Where the hashes of pictures made by the picture workers come from (picture-queue.ts). */
export type MadeHashes = Pick<PictureQueue, 'announced'>;

/** No worker ever made a picture (the look-alike benchmark, whose hashes are all in the store). */
export const NO_MADE_HASHES: MadeHashes = { announced: async (after) => ({ hashes: [], last: after }) };

/** How old the index may be before a query rebuilds it (live batches add creatives; their look-alikes follow). */
const REFRESH_MS = 60_000;

/**
 * The look-alike index of every creative's first picture, built from the store (both engines answer
 * `creativePictureHashes`) and the hashes the picture workers announced for pictures made after their ads were
 * applied, and kept in memory. A query after REFRESH_MS starts a rebuild and is answered from the
 * index it has meanwhile, so only the very first query waits for a build.
 */
@Injectable()
export class LookalikeIndex {
  private current: { index: HashIndex; at: number } | null = null;
  private building: Promise<HashIndex> | null = null;

  /** The hashes of pictures the workers made since the start (the store's records keep those entries pending). */
  private readonly made = new Map<string, string>();
  private madeUpTo = '0-0';

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    @Inject(PictureQueue) private readonly queue: MadeHashes,
  ) {}

  async index(): Promise<HashIndex> {
    if (this.current && Date.now() - this.current.at < REFRESH_MS) return this.current.index;
    const build = this.build();
    if (!this.current) return build;
    // A failed rebuild in the background keeps the index it had; the next query after REFRESH_MS tries again.
    build.catch(() => undefined);
    return this.current.index;
  }

  private build(): Promise<HashIndex> {
    this.building ??= Promise.all([this.store.creativePictureHashes(), this.readMade()])
      .then(([stored]) => {
        const hashes = new Map(stored.map((h) => [h.id, h.phash]));
        for (const [id, phash] of this.made) if (!hashes.has(id)) hashes.set(id, phash);
        const index = new HashIndex([...hashes.keys()], [...hashes.values()]);
        this.current = { index, at: Date.now() };
        return index;
      })
      .finally(() => {
        this.building = null;
      });
    return this.building;
  }

  /** Reads the hashes announced since the last build (picture-queue.ts, `announce`). */
  private async readMade(): Promise<void> {
    for (;;) {
      const { hashes, last } = await this.queue.announced(this.madeUpTo, 10_000);
      for (const { id, phash } of hashes) this.made.set(id, phash);
      if (last === this.madeUpTo) return;
      this.madeUpTo = last;
    }
  }
}
