import { Inject, Injectable } from '@nestjs/common';
import type { AdFilters, AdsPage, SearchAdsArgs } from '@adintel/contracts';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { ListPager } from '../paging/list-pager';
import { decodeWatermark, encodeWatermark, watermarkGone } from '../paging/watermark';
import { AD_STORE, type AdChangesQuery, type AdStore, type ChangePosition, type CountResult } from '../store/ad-store.port';
import { EXACT_TOTAL_UP_TO, toAdFilter } from './ad-filter';

/**
 * search_ads and count_ads with `changed_since` (issue 36): the ads matching the filters whose visible state changed
 * since the watermark, in change order, each with `change` and `changed_at`; the answer's watermark continues from it.
 */
@Injectable()
export class AdChangesService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'FEED_RETENTION_DAYS'>,
  ) {}

  async search(args: SearchAdsArgs & { changed_since: string }): Promise<AdsPage> {
    const since = decodeWatermark(args.changed_since);
    const filter = toAdFilter(args);
    let position: ChangePosition = since;
    let count: CountResult = { total: 0, estimated: false };
    const page = await this.pager.page('ads-changes', { filter, since }, args.cursor, async (after) => {
      const result = await this.changes({ filter, since, limit: args.limit, countUpTo: EXACT_TOTAL_UP_TO, ...(after ? { after } : {}) });
      position = result.position;
      count = result.count;
      return result.page;
    });
    return {
      data: page.data,
      pagination: { ...page.pagination, total: count.total, total_estimated: count.estimated, watermark: encodeWatermark(position) },
    };
  }

  async count(filters: AdFilters, changedSince: string): Promise<CountResult> {
    const since = decodeWatermark(changedSince);
    return (await this.changes({ filter: toAdFilter(filters), since, limit: 0, countUpTo: EXACT_TOTAL_UP_TO })).count;
  }

  private async changes(query: AdChangesQuery) {
    const result = await this.store.adChanges(query);
    if (result.outcome !== 'page') throw watermarkGone(result.outcome, this.config.FEED_RETENTION_DAYS);
    return result;
  }
}
