import { Inject, Injectable } from '@nestjs/common';
import type {
  AdDetail,
  AdsBreakdown,
  AdsBreakdownArgs,
  AdsCount,
  AdsPage,
  BreakdownBucket,
  BreakdownField,
  CountAdsArgs,
  SearchAdsArgs,
} from '@adintel/contracts';
import { findTool, worstCaseCost } from '@adintel/tool-catalogue';
import { OVERVIEW, OVERVIEW_SECTIONS, ServiceError } from '@adintel/contracts';
import { categoryLabel, countryLabel } from '../catalog/labels';
import { ListPager } from '../paging/list-pager';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { publicMedia } from '../media/media-links';
import { PictureCatalogue } from '../media/picture-catalogue';
import { AD_STORE, type AdFilter, type AdStore, type BreakdownResult } from '../store/ad-store.port';
import { EXACT_TOTAL_UP_TO, toAdFilter } from './ad-filter';
import { AdChangesService } from './ad-changes.service';
import { SimilarAdsService } from './similar-ads.service';
import { encodeWatermark } from '../paging/watermark';

export { EXACT_TOTAL_UP_TO };

const LABELS: Partial<Record<BreakdownField, (key: string) => string>> = {
  country: countryLabel,
  category: categoryLabel,
};

@Injectable()
export class AdsService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'PUBLIC_BASE_URL'>,
    private readonly similar: SimilarAdsService,
    private readonly pictures: PictureCatalogue,
    private readonly changes: AdChangesService,
  ) {}

  async search(args: SearchAdsArgs): Promise<AdsPage> {
    if (args.changed_since !== undefined) return this.changes.search({ ...args, changed_since: args.changed_since });
    if (args.similar_to !== undefined) return this.similar.search({ ...args, similar_to: args.similar_to });
    const filter = toAdFilter(args);
    const binding = { filter, sort: args.sort_by, order: args.sort_order };
    let watermark: string | null = null;
    const [page, count] = await Promise.all([
      this.pager.page('ads', binding, args.cursor, async (after) => {
        const found = await this.store.searchAds({ filter, sort: args.sort_by, order: args.sort_order, limit: args.limit, ...(after ? { after } : {}) });
        // The position of the page's own read: a change after it is in the next feed, never lost between the two.
        if (found.position) watermark = encodeWatermark(found.position);
        return found;
      }),
      this.store.countAds(filter, EXACT_TOTAL_UP_TO),
    ]);
    return { data: page.data, pagination: { ...page.pagination, total: count.total, total_estimated: count.estimated, watermark } };
  }

  async get(id: string): Promise<AdDetail> {
    const ad = await this.store.getAd(id);
    if (!ad) throw ServiceError.notFound('ad', id);
    return { ...ad, media: publicMedia(this.config.PUBLIC_BASE_URL, ad.creative_id, await this.pictures.resolve(ad.media)) };
  }

  async count(args: CountAdsArgs): Promise<AdsCount> {
    const { limit, changed_since, ...filters } = args;
    const count =
      changed_since === undefined ? await this.store.countAds(toAdFilter(filters), EXACT_TOTAL_UP_TO) : await this.changes.count(filters, changed_since);
    const searchAds = findTool('search_ads');
    const rows = Math.min(limit, count.total);
    return {
      total: count.total,
      total_estimated: count.estimated,
      cost_of_next_page: searchAds ? worstCaseCost(searchAds, { limit: rows }) : rows,
    };
  }

  async breakdown(args: AdsBreakdownArgs): Promise<AdsBreakdown> {
    const { field, limit, ...filters } = args;
    const filter = toAdFilter(filters);
    if (field === OVERVIEW) return this.overview(filter, limit);
    const result = await this.store.breakdown(filter, field, limit);
    return { field, total: result.total, total_estimated: false, data: bucketsOf(field, result) };
  }

  /**
   * Every overview section at once: `limit` rows shared among them (the first sections take one more when it does not
   * divide), but one row at least each: every section is a scan, and the catalogue prices the overview at one row per
   * section at least (its cost rule's `sections`), so the worst case is the larger of `limit` and the section count.
   * One bucket more than its share tells a section whether it is complete.
   */
  private async overview(filter: AdFilter, limit: number): Promise<AdsBreakdown> {
    const share = (i: number) => Math.max(1, Math.floor(limit / OVERVIEW_SECTIONS.length) + (i < limit % OVERVIEW_SECTIONS.length ? 1 : 0));
    const results = await Promise.all(OVERVIEW_SECTIONS.map((field, i) => this.store.breakdown(filter, field, share(i) + 1)));
    const sections = OVERVIEW_SECTIONS.map((field, i) => {
      const result = results[i] ?? { total: 0, buckets: [] };
      const rows = share(i);
      return {
        field,
        complete: result.buckets.length <= rows,
        data: bucketsOf(field, { total: result.total, buckets: result.buckets.slice(0, rows) }),
      };
    });
    return { field: OVERVIEW, total: results[0]?.total ?? 0, total_estimated: false, data: [], sections };
  }
}

function bucketsOf(field: BreakdownField, result: BreakdownResult): BreakdownBucket[] {
  const label = LABELS[field] ?? ((key: string) => key);
  return result.buckets.map((b) => ({
    key: b.key,
    label: b.label ?? label(b.key),
    ads: b.ads,
    share: result.total ? Math.min(1, b.ads / result.total) : 0,
  }));
}
