import { Inject, Injectable } from '@nestjs/common';
import type { Evidence, TrendDimension, TrendRow, Trends, TrendsArgs } from '@adintel/contracts';
import { countryLabel } from '../catalog/labels';
import { DataWindowService } from '../paging/data-window.service';
import { AD_STORE, type AdStore, type DateRange, type TrendFilter, type TrendRowData } from '../store/ad-store.port';
import { addDays, dayNumber } from '../store/text';

/** The search_ads argument that narrows to a row's key, per dimension. */
const EVIDENCE_KEY: Record<Exclude<TrendDimension, 'timeline'>, string> = {
  geo: 'country',
  'advertisers/cards': 'advertiser_id',
  webmasters: 'webmaster_id',
  apps: 'app_id',
  'scaling-creatives': 'creative_id',
};

/** The previous window of equal length, ending the day before the window starts. */
export function previousWindow(window: DateRange): DateRange {
  const length = dayNumber(window.to) - dayNumber(window.from) + 1;
  return { from: addDays(window.from, -length), to: addDays(window.from, -1) };
}

@Injectable()
export class TrendsService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly dataWindow: DataWindowService,
  ) {}

  async trends(args: TrendsArgs): Promise<Trends> {
    const window = await this.dataWindow.window(args.date_from, args.date_to);
    const previous = previousWindow(window);
    const filter: TrendFilter = {
      ...(args.country ? { country: args.country.toUpperCase() } : {}),
      ...(args.platform ? { platform: args.platform } : {}),
      ...(args.ai_category ? { category: args.ai_category } : {}),
    };
    const result = await this.store.trends({ dimension: args.dimension, filter, window, previous, limit: args.limit });
    // Timeline: one row per day, the most recent `limit` days, ordered by date.
    const rows = args.dimension === 'timeline' ? result.rows.slice(-args.limit) : result.rows.slice(0, args.limit);
    return {
      dimension: args.dimension,
      window: { date_from: window.from, date_to: window.to },
      previous_window: { date_from: previous.from, date_to: previous.to },
      total_ads: result.totalAds,
      data: rows.map((row, i) => this.shape(args, row, i + 1, result.totalAds, window)),
    };
  }

  private shape(args: TrendsArgs, row: TrendRowData, rank: number, total: number, window: DateRange): TrendRow {
    const detail =
      args.dimension === 'scaling-creatives' ? { ...row.detail, growth: row.ads - row.previousAds } : row.detail;
    return {
      rank,
      key: row.key,
      label: args.dimension === 'geo' ? countryLabel(row.key) : row.label,
      ads: row.ads,
      share: total ? Math.min(1, row.ads / total) : 0,
      change: {
        previous_ads: row.previousAds,
        delta: row.ads - row.previousAds,
        ratio: row.previousAds ? row.ads / row.previousAds : null,
      },
      evidence: evidence(args, row.key, window),
      detail: detail as TrendRow['detail'],
    };
  }
}

/** The search_ads arguments that list the ads behind a row (same window rule, same filters). */
export function evidence(args: TrendsArgs, key: string, window: DateRange): Evidence {
  const a: Evidence['arguments'] = { date_from: window.from, date_to: window.to };
  if (args.country) a['country'] = args.country.toUpperCase();
  if (args.platform) a['platforms'] = [args.platform];
  if (args.ai_category) a['creative_categories'] = [args.ai_category];
  if (args.dimension === 'timeline') {
    a['date_from'] = key;
    a['date_to'] = key;
  } else {
    a[EVIDENCE_KEY[args.dimension]] = key;
  }
  return { tool: 'search_ads', arguments: a };
}
