import { z } from 'zod';
import { AD_CHANGES, AD_STATUSES, BREAKDOWN_FIELDS, CREATIVE_FORMATS, DESTINATION_TYPES, OVERVIEW, PLATFORMS } from '../vocabulary';
import { Id, IsoDate, Share, similarityFields } from './common';

/** What the service holds of a media entry's file (pending: a picture worker is making it). */
export const MEDIA_FILE_STATES = ['held', 'pending', 'failed', 'not_held'] as const;
export type MediaFileState = (typeof MEDIA_FILE_STATES)[number];

/** One ad as search_ads returns it. */
export const Ad = z.object({
  id: Id,
  title: z.string(),
  body: z.string(),
  landing_domain: z.string(),
  landing_url: z.string(),
  destination_type: z.enum(DESTINATION_TYPES).describe('where the landing URL sends people'),
  platform_name: z.enum(PLATFORMS),
  advertiser_id: Id,
  webmaster_id: Id.nullable().describe('null when the ad runs without an affiliate'),
  status_today: z.enum(AD_STATUSES),
  days_active: z.int().min(0).describe('days from first to last seen'),
  first_seen_date: IsoDate,
  last_seen_date: IsoDate,
  countries: z.array(z.string()),
  languages: z.array(z.string()),
  categories: z.array(z.string()),
  creative_format: z.enum(CREATIVE_FORMATS),
  media_count: z.int().min(0),
  creative_id: Id,
  app_id: Id.nullable(),
  impressions: z.int().min(0).describe('estimate'),
  popularity: z.number().min(0),
  activity_days_amount: z.int().min(0).describe('distinct days seen active'),
  ...similarityFields,
});
export type Ad = z.infer<typeof Ad>;

export const Media = z.object({
  type: z.enum(['image', 'video']),
  url: z.string().describe('the file, served by this service (GET /api/v1/creo/{id}/media/{n}; 10 tokens)'),
  width: z.int().positive(),
  height: z.int().positive(),
  duration_seconds: z.number().nullable(),
  bytes: z.int().min(0).nullable().describe('size of the file; null when the service does not hold it'),
  thumbnail_url: z.string().nullable().describe('a small WebP of it (free); null when the service does not hold the file'),
  // Optional: added after the first release, so a record without it (an older replica's) still reads.
  file: z
    .enum(MEDIA_FILE_STATES)
    .optional()
    .describe(
      'held: the service serves the file (url, thumbnail_url); pending: the service is making it (rendering or fetching) and ' +
        'serves it within minutes; failed: it could not be had; not_held: the entry keeps the URL it was ingested with',
    ),
});
export type Media = z.infer<typeof Media>;

export const AdvertiserSummary = z.object({
  id: Id,
  name: z.string(),
  platforms: z.array(z.enum(PLATFORMS)),
});
export type AdvertiserSummary = z.infer<typeof AdvertiserSummary>;

export const WebmasterSummary = z.object({
  id: Id,
  name: z.string(),
});
export type WebmasterSummary = z.infer<typeof WebmasterSummary>;

/** get_ad: one ad with its media and the summaries of who runs it. */
export const AdDetail = Ad.extend({
  media: z.array(Media),
  advertiser: AdvertiserSummary,
  webmaster: WebmasterSummary.nullable(),
});
export type AdDetail = z.infer<typeof AdDetail>;

/** A search_ads row: with `changed_since`, also what changed since the watermark and when. */
export const AdRow = Ad.extend({
  change: z
    .enum(AD_CHANGES)
    .optional()
    .describe('changed_since only: new (first seen), ended (went inactive), resumed (active again), changed (a visible field)'),
  changed_at: z.string().optional().describe('changed_since only: when the service applied the change (ISO 8601 time)'),
});
export type AdRow = z.infer<typeof AdRow>;

/** A search_ads page: the ads and how to fetch the next page. */
export const AdsPage = z.object({
  data: z.array(AdRow),
  pagination: z.object({
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    total: z.int().min(0),
    total_estimated: z.boolean(),
    watermark: z
      .string()
      .nullable()
      .describe('the store position of this answer: pass it as changed_since later, with the same filters, to get only what changed'),
  }),
});
export type AdsPage = z.infer<typeof AdsPage>;

export const AdsCount = z.object({
  total: z.int().min(0),
  total_estimated: z.boolean(),
  cost_of_next_page: z.int().min(0).describe('tokens search_ads would charge for the first page at the given limit'),
});
export type AdsCount = z.infer<typeof AdsCount>;

export const BreakdownBucket = z.object({
  key: z.string(),
  label: z.string(),
  ads: z.int().min(0),
  share: Share,
});
export type BreakdownBucket = z.infer<typeof BreakdownBucket>;

export const OverviewSection = z.object({
  field: z.enum(BREAKDOWN_FIELDS),
  complete: z.boolean().describe('true: every bucket of this field is in `data`; false: truncated to the top rows'),
  data: z.array(BreakdownBucket),
});
export type OverviewSection = z.infer<typeof OverviewSection>;

/**
 * A breakdown by one field (`data`), or with `field=overview` the top rows of every overview section (`sections`,
 * `data` empty). Either way 1 token per bucket delivered.
 */
export const AdsBreakdown = z.object({
  field: z.enum([...BREAKDOWN_FIELDS, OVERVIEW]),
  total: z.int().min(0).describe('ads matching the filters'),
  total_estimated: z.boolean().describe('false: `total` is exact'),
  data: z.array(BreakdownBucket),
  sections: z.array(OverviewSection).optional().describe('field=overview only: one per section, top rows first'),
});
export type AdsBreakdown = z.infer<typeof AdsBreakdown>;
