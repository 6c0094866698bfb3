import { Inject, Injectable } from '@nestjs/common';
import type { AdvertiserList, PagedByIdArgs, SimilarNameSearchArgs, Webmaster, WebmasterList, WebmasterRow } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { ListPager, nameQuery } from '../paging/list-pager';
import { rankedPage, type Ranked } from '../paging/ranked-page';
import { AD_STORE, type AdStore, type SortKey } from '../store/ad-store.port';
import { nameSuffixes } from '../store/text';
import { MIN_WEBMASTER_SIMILARITY, profileOf, profileSimilarity, sharedTraits, type WebmasterProfile } from './webmaster-profiles';

/** How old the profiles may be before a look-alike query reloads them. */
const PROFILES_MS = 60_000;
const PAGE = 100;

@Injectable()
export class WebmastersService {
  private profiles: { at: number; list: Promise<WebmasterProfile[]> } | null = null;

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
  ) {}

  search(args: SimilarNameSearchArgs): Promise<WebmasterList> {
    const q = nameQuery(args.q);
    if (args.similar_to !== undefined) return this.similar(args.similar_to, q, args);
    return this.pager.page('webmasters', { q: q ?? null }, args.cursor, (after) =>
      this.store.searchWebmasters({ limit: args.limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }),
    );
  }

  async get(id: string): Promise<Webmaster> {
    const webmaster = await this.store.getWebmaster(id);
    if (!webmaster) throw ServiceError.notFound('webmaster', id);
    return webmaster;
  }

  advertisers(args: PagedByIdArgs): Promise<AdvertiserList> {
    return this.pager.page('webmaster-advertisers', { id: args.id }, args.cursor, async (after) => {
      const page = await this.store.webmasterAdvertisers(args.id, { limit: args.limit, ...(after ? { after } : {}) });
      if (!page) throw ServiceError.notFound('webmaster', args.id);
      return page;
    });
  }

  /** search_webmasters with similar_to: operators with a similar country, category and landing-domain profile. */
  private similar(id: string, q: string | undefined, args: SimilarNameSearchArgs): Promise<WebmasterList> {
    return this.pager.page('webmasters-similar', { similar_to: id, q: q ?? null }, args.cursor, async (after) => {
      const target = profileOf(await this.get(id));
      const ranking: Ranked<WebmasterRow>[] = [];
      for (const other of await this.allProfiles()) {
        if (other.row.id === id || (q && !nameSuffixes(other.row.name).some((suffix) => suffix.startsWith(q)))) continue;
        const similarity = profileSimilarity(target, other);
        if (similarity < MIN_WEBMASTER_SIMILARITY) continue;
        ranking.push({ row: { ...other.row, similarity, match: sharedTraits(target, other) }, rank: Math.round((1 - similarity) * 1000), id: other.row.id });
      }
      ranking.sort((a, b) => a.rank - b.rank || (a.id < b.id ? -1 : 1));
      return rankedPage(ranking, args.limit, after);
    });
  }

  /**
   * Every webmaster's profile (webmasters are few: one per ~500 ads in the demo), reloaded at most once a minute. A
   * query that finds them stale starts a reload and is answered from the profiles it has (2,000 webmasters at 1M ads
   * take about 2 s to load on a busy machine), as the look-alike index of the creatives is; only the first query waits.
   */
  private async allProfiles(): Promise<WebmasterProfile[]> {
    if (!this.profiles || Date.now() - this.profiles.at > PROFILES_MS) {
      const previous = this.profiles?.list;
      const list = this.loadProfiles();
      this.profiles = { at: Date.now(), list };
      list.catch(() => (this.profiles = null));
      if (previous) return previous.catch(() => list);
    }
    return this.profiles.list;
  }

  private async loadProfiles(): Promise<WebmasterProfile[]> {
    const profiles: WebmasterProfile[] = [];
    let after: SortKey | undefined;
    do {
      const page = await this.store.searchWebmasters({ limit: PAGE, ...(after ? { after } : {}) });
      const records = await Promise.all(page.rows.map((row) => this.store.getWebmaster(row.id)));
      for (const record of records) if (record) profiles.push(profileOf(record));
      after = page.hasMore && page.lastKey ? page.lastKey : undefined;
    } while (after);
    return profiles;
  }
}
