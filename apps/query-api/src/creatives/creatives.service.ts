import { Inject, Injectable } from '@nestjs/common';
import type { Creative, CreativeList, CreativeRow, SimilarNameSearchArgs } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { LookalikeIndex } from '../media/lookalike-index.service';
import { similarityOf } from '../media/lookalikes';
import { publicMedia } from '../media/media-links';
import { PictureCatalogue } from '../media/picture-catalogue';
import { ListPager, nameQuery } from '../paging/list-pager';
import { rankedPage, type Ranked } from '../paging/ranked-page';
import { AD_STORE, type AdStore } from '../store/ad-store.port';
import { nameSuffixes } from '../store/text';

/** Look-alikes considered per query, nearest first: far more than any family of recuts. */
const MAX_LOOKALIKES = 200;

@Injectable()
export class CreativesService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'PUBLIC_BASE_URL'>,
    private readonly lookalikes: LookalikeIndex,
    private readonly pictures: PictureCatalogue,
  ) {}

  search(args: SimilarNameSearchArgs): Promise<CreativeList> {
    const q = nameQuery(args.q);
    if (args.similar_to !== undefined) return this.similar(args.similar_to, q, args);
    return this.pager.page('creatives', { q: q ?? null }, args.cursor, (after) =>
      this.store.searchCreatives({ limit: args.limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }),
    );
  }

  async get(id: string): Promise<Creative> {
    const creative = await this.store.getCreative(id);
    if (!creative) throw ServiceError.notFound('creative', id);
    return { ...creative, media: publicMedia(this.config.PUBLIC_BASE_URL, creative.id, await this.pictures.resolve(creative.media)) };
  }

  /**
   * The creatives within NEAR_DUPLICATE_DISTANCE of this one's first picture (itself left out), nearest first. The
   * picture's hash comes from the index when it holds the creative; a creative it does not hold (no picture, or one
   * added since the index was built) is read from the store. A creative whose picture a worker is still making has
   * no hash yet: that is a `conflict` to ask again shortly, not an empty list that would read as "no look-alikes".
   */
  async nearDuplicates(id: string): Promise<{ id: string; distance: number }[]> {
    const index = await this.lookalikes.index();
    let phash = index.hashOf(id);
    if (phash === undefined) {
      const creative = await this.store.getCreative(id);
      if (!creative) throw ServiceError.notFound('creative', id);
      const [first] = await this.pictures.resolve(creative.media.slice(0, 1));
      phash = first?.stored?.phash;
      if (!phash && first?.pending && first.failed === undefined) {
        throw ServiceError.of('conflict', `the picture of creative ${JSON.stringify(id)} is still being made (pending): ask again in a minute`, {
          retry_after_seconds: 30,
        });
      }
      if (!phash) return [];
    }
    return index
      .near(phash)
      .filter((match) => match.id !== id)
      .slice(0, MAX_LOOKALIKES);
  }

  /** search_creatives with similar_to: near duplicates by similarity, with `q` still applied to their titles. */
  private similar(id: string, q: string | undefined, args: SimilarNameSearchArgs): Promise<CreativeList> {
    return this.pager.page('creatives-similar', { similar_to: id, q: q ?? null }, args.cursor, async (after) => {
      const matches = await this.nearDuplicates(id);
      // Every candidate's row in one read: the ranking needs them all (q may leave some out), not only a page.
      const rows = new Map((await this.store.creativeRows(matches.map((m) => m.id))).map((row) => [row.id, row]));
      const ranking: Ranked<CreativeRow>[] = [];
      for (const match of matches) {
        const row = rows.get(match.id);
        if (!row || (q && !nameSuffixes(row.title).some((suffix) => suffix.startsWith(q)))) continue;
        ranking.push({ row: { ...row, similarity: similarityOf(match.distance), match: ['near_duplicate'] }, rank: match.distance, id: match.id });
      }
      return rankedPage(ranking, args.limit, after);
    });
  }
}
