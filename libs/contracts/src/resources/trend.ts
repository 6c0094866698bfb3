import { z } from 'zod';
import { APP_STORES, CREATIVE_FORMATS, PLATFORMS, TREND_DIMENSIONS } from '../vocabulary';
import { DateWindow, Id, IsoDate, Share } from './common';

/** The search_ads arguments that list the ads behind a trend row. */
export const Evidence = z.object({
  tool: z.literal('search_ads'),
  arguments: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});
export type Evidence = z.infer<typeof Evidence>;

export const TrendChange = z.object({
  previous_ads: z.int().min(0).describe('ads in the previous window of equal length'),
  delta: z.int(),
  ratio: z.number().nullable().describe('ads / previous_ads; null when the previous window had none'),
});
export type TrendChange = z.infer<typeof TrendChange>;

export const GeoDetail = z.object({ advertisers: z.int().min(0), top_categories: z.array(z.string()) });
export const AdvertiserCardDetail = z.object({
  name: z.string(),
  platforms: z.array(z.enum(PLATFORMS)),
  active_ads: z.int().min(0),
  creatives: z.int().min(0),
  top_countries: z.array(z.string()),
  sample_ad_ids: z.array(Id),
});
export const WebmasterTrendDetail = z.object({ dominant_country: z.string().nullable(), advertisers: z.int().min(0) });
export const AppTrendDetail = z.object({ store: z.enum(APP_STORES), bundle_id: z.string(), advertisers: z.int().min(0) });
export const TimelineDetail = z.object({ date: IsoDate, new_ads: z.int().min(0), active_ads: z.int().min(0) });
export const ScalingCreativeDetail = z.object({
  creative_format: z.enum(CREATIVE_FORMATS),
  advertiser_id: Id,
  growth: z.int().describe('ads added since the previous window'),
});

export const TrendRow = z.object({
  rank: z.int().min(1),
  key: z.string(),
  label: z.string(),
  ads: z.int().min(0).describe('ads active in the window'),
  share: Share,
  change: TrendChange,
  evidence: Evidence,
  detail: z.union([
    GeoDetail,
    AdvertiserCardDetail,
    WebmasterTrendDetail,
    AppTrendDetail,
    TimelineDetail,
    ScalingCreativeDetail,
  ]),
});
export type TrendRow = z.infer<typeof TrendRow>;

export const Trends = z.object({
  dimension: z.enum(TREND_DIMENSIONS),
  window: DateWindow,
  previous_window: DateWindow,
  total_ads: z.int().min(0).describe('ads active in the window under the filters'),
  data: z.array(TrendRow),
});
export type Trends = z.infer<typeof Trends>;
