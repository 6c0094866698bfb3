import { Inject, Injectable } from '@nestjs/common';
import type { Ad, AdsPage, SearchAdsArgs } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { CreativesService } from '../creatives/creatives.service';
import { similarityOf } from '../media/lookalikes';
import { ListPager } from '../paging/list-pager';
import { encodeWatermark } from '../paging/watermark';
import { AD_STORE, type AdFilter, type AdStore, type ChangePosition, type KeysetPage, type SortKey } from '../store/ad-store.port';
import { EXACT_TOTAL_UP_TO, toAdFilter } from './ad-filter';

/** One creative whose ads a look-alike page lists: the ad's own first, then its near duplicates by similarity. */
interface Group {
  creativeId: string;
  similarity: number;
  match: 'same_creative' | 'near_duplicate';
}

/**
 * search_ads with `similar_to` (an ad id): every ad of the same creative first, then the ads of each near-duplicate
 * creative (creatives.service.ts), nearest first; inside a creative the ads keep `sort_by`/`sort_order`. The other
 * filters apply to every group. The cursor is the position in that order: the group's rank and the ad's own sort key,
 * so pages never overlap or skip, on either engine (each group is one ordinary `searchAds` with `creativeId`).
 */
@Injectable()
export class SimilarAdsService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
    private readonly creatives: CreativesService,
  ) {}

  async search(args: SearchAdsArgs & { similar_to: string }): Promise<AdsPage> {
    const filter = toAdFilter(args);
    const ad = await this.store.getAd(args.similar_to);
    if (!ad) throw ServiceError.notFound('ad', args.similar_to);
    const near = await this.creatives.nearDuplicates(ad.creative_id);
    const groups: Group[] = [
      { creativeId: ad.creative_id, similarity: 1, match: 'same_creative' as const },
      ...near.map((m) => ({ creativeId: m.id, similarity: similarityOf(m.distance), match: 'near_duplicate' as const })),
    ].filter((g) => !filter.creativeId || g.creativeId === filter.creativeId);
    const binding = { similar_to: args.similar_to, filter, sort: args.sort_by, order: args.sort_order };
    let position: ChangePosition | undefined;
    const [page, counts] = await Promise.all([
      this.pager.page('ads-similar', binding, args.cursor, async (after) => {
        const found = await this.page(groups, filter, args, after);
        position = found.position;
        return found;
      }),
      Promise.all(groups.map((g) => this.store.countAds({ ...filter, creativeId: g.creativeId }, EXACT_TOTAL_UP_TO))),
    ]);
    const total = counts.reduce((sum, c) => sum + c.total, 0);
    const estimated = counts.some((c) => c.estimated) || total > EXACT_TOTAL_UP_TO;
    return {
      data: page.data,
      pagination: {
        ...page.pagination,
        total: Math.min(total, EXACT_TOTAL_UP_TO),
        total_estimated: estimated,
        watermark: position ? encodeWatermark(position) : null,
      },
    };
  }

  /** Rows after `after` (`value` = "<group>:<the ad's sort value as JSON>"), walking group after group. */
  private async page(
    groups: Group[],
    filter: AdFilter,
    args: SearchAdsArgs,
    after: SortKey | undefined,
  ): Promise<KeysetPage<Ad> & { position?: ChangePosition }> {
    let group = 0;
    let inner: SortKey | undefined;
    if (after) {
      const match = /^(\d+):(.*)$/s.exec(String(after.value));
      group = Number(match?.[1] ?? 0);
      inner = { value: JSON.parse(match?.[2] ?? '0') as string | number, id: after.id };
    }
    const rows: Ad[] = [];
    let lastKey: SortKey | null = null;
    // The position of the first group's read: what follows it is in a later feed, never lost.
    let position: ChangePosition | undefined;
    for (; group < groups.length; group++, inner = undefined) {
      const { creativeId, similarity, match } = groups[group] as Group;
      const want = args.limit - rows.length;
      const found = await this.store.searchAds({
        filter: { ...filter, creativeId },
        sort: args.sort_by,
        order: args.sort_order,
        limit: want,
        ...(inner ? { after: inner } : {}),
      });
      position ??= found.position;
      rows.push(...found.rows.map((row) => ({ ...row, similarity, match: [match] })));
      if (found.lastKey) lastKey = { value: `${group}:${JSON.stringify(found.lastKey.value)}`, id: found.lastKey.id };
      if (rows.length >= args.limit) {
        const more = found.hasMore || (await this.anyAfter(groups, filter, group + 1));
        return { rows, hasMore: more, lastKey, ...(position && { position }) };
      }
    }
    return { rows, hasMore: false, lastKey, ...(position && { position }) };
  }

  private async anyAfter(groups: Group[], filter: AdFilter, from: number): Promise<boolean> {
    for (let g = from; g < groups.length; g++) {
      const count = await this.store.countAds({ ...filter, creativeId: (groups[g] as Group).creativeId }, 1);
      if (count.total > 0) return true;
    }
    return false;
  }
}
