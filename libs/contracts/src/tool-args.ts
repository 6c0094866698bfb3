import { z } from 'zod';
import {
  AD_SORTS,
  AD_STATUSES,
  BREAKDOWN_FIELDS,
  DESTINATION_TYPES,
  IMPRESSIONS_NARROWING_FILTERS,
  OVERVIEW,
  OVERVIEW_SECTIONS,
  PLATFORMS,
  SORT_ORDERS,
  TREND_DIMENSIONS,
} from './vocabulary';
import { CountryCode, Cursor, Id, IsoDate, Slug } from './resources/common';

/**
 * Arguments of every tool: the request schemas of the messages that answer them (messages/query.ts), from
 * which the tool catalogue derives each tool's arguments. A surface that differs (search_ads pages 20 on MCP)
 * overrides a field in the catalogue.
 */
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 50;
export const MCP_SEARCH_ADS_DEFAULT_LIMIT = 20;

export const limitParam = (defaultLimit = DEFAULT_LIMIT) =>
  z.int().min(1).max(MAX_LIMIT).default(defaultLimit).describe(`page size, 1-${MAX_LIMIT}, default ${defaultLimit}`);

const query = z.string().trim().min(1).max(200);
const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/, 'must be a domain name, e.g. example.com');

type DatedArgs = { date_from?: string; date_to?: string };
const datesInOrder = (args: DatedArgs, ctx: z.core.$RefinementCtx) => {
  if (args.date_from && args.date_to && args.date_from > args.date_to) {
    ctx.addIssue({ code: 'custom', path: ['date_to'], message: 'must not be before date_from' });
  }
};

/** The ad filters shared by search_ads, count_ads and get_ads_breakdown. */
export const adFilterShape = {
  q: query.optional().describe('keywords matched as words in title, body and landing URL'),
  country: CountryCode.optional().describe('ISO 3166-1 alpha-2 code, e.g. US'),
  platforms: z.array(z.enum(PLATFORMS)).min(1).max(PLATFORMS.length).optional(),
  creative_categories: z.array(Slug).min(1).max(25).optional().describe('AI category slugs, e.g. finance_and_banking'),
  status_today: z.enum(AD_STATUSES).optional(),
  advertiser_id: Id.optional(),
  webmaster_id: Id.optional(),
  landing_domain: domainName.optional().describe('exact landing domain, subdomains included (use this, not q, for domains)'),
  destination_type: z.enum(DESTINATION_TYPES).optional().describe('where the ad sends people (get_catalog lists the types)'),
  app_id: Id.optional().describe('ads promoting this app'),
  creative_id: Id.optional().describe('ads using this unique creative'),
  date_from: IsoDate.optional().describe('ads last seen on or after this date (YYYY-MM-DD)'),
  date_to: IsoDate.optional().describe('ads first seen on or before this date (YYYY-MM-DD)'),
};

/** A search_ads watermark (pagination.watermark); its meaning is checked by query-api (400 malformed, 410 gone). */
const changedSince = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    'pagination.watermark of an earlier search_ads answer: only the ads matching the filters that changed since (new, ended, resumed, changed), in change order',
  );

export const adFilters = () => z.strictObject(adFilterShape).superRefine(datesInOrder);
export type AdFilters = z.infer<ReturnType<typeof adFilters>>;

export const searchAdsArgs = () =>
  z
    .strictObject({
      ...adFilterShape,
      sort_by: z.enum(AD_SORTS).default('date'),
      sort_order: z.enum(SORT_ORDERS).default('desc'),
      limit: limitParam(),
      cursor: Cursor.optional().describe('pagination.next_cursor of the previous page, with the same filters'),
      similar_to: Id.optional().describe(
        'an ad id: ads running the same creative (first) or a near copy of it, by similarity; the other filters still apply',
      ),
      changed_since: changedSince,
    })
    .superRefine(datesInOrder)
    .superRefine((args, ctx) => {
      if (args.changed_since !== undefined && args.similar_to !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['changed_since'], message: 'cannot be combined with similar_to' });
      }
    })
    .superRefine((args, ctx) => {
      if (args.sort_by === 'impressions' && !IMPRESSIONS_NARROWING_FILTERS.some((f) => args[f] !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['sort_by'],
          message: `sort_by=impressions needs a narrowing filter: one of ${IMPRESSIONS_NARROWING_FILTERS.join(', ')}`,
        });
      }
    });
export type SearchAdsArgs = z.infer<ReturnType<typeof searchAdsArgs>>;

export const countAdsArgs = () =>
  z
    .strictObject({ ...adFilterShape, changed_since: changedSince, limit: limitParam().describe('page size to price the next page at') })
    .superRefine(datesInOrder);
export type CountAdsArgs = z.infer<ReturnType<typeof countAdsArgs>>;

export const adsBreakdownArgs = () =>
  z
    .strictObject({
      field: z
        .enum([...BREAKDOWN_FIELDS, OVERVIEW])
        .describe(`a field, or ${OVERVIEW}: the top rows of ${OVERVIEW_SECTIONS.join(', ')} at once, \`limit\` rows shared among them`),
      ...adFilterShape,
      limit: limitParam(),
    })
    .superRefine(datesInOrder);
export type AdsBreakdownArgs = z.infer<ReturnType<typeof adsBreakdownArgs>>;

export const byId = () => z.strictObject({ id: Id });

export const trendsArgs = () =>
  z
    .strictObject({
      dimension: z.enum(TREND_DIMENSIONS),
      country: CountryCode.optional(),
      platform: z.enum(PLATFORMS).optional(),
      ai_category: Slug.optional(),
      date_from: IsoDate.optional().describe('window start; default 30 days before date_to'),
      date_to: IsoDate.optional().describe('window end; default the latest day with data'),
      limit: limitParam(),
    })
    .superRefine(datesInOrder);
export type TrendsArgs = z.infer<ReturnType<typeof trendsArgs>>;

/** Name searches: advertisers, webmasters, creatives, domains, apps. */
export const nameSearchArgs = () => z.strictObject({ q: query.optional(), limit: limitParam() });
export type NameSearchArgs = z.infer<ReturnType<typeof nameSearchArgs>>;

export const pagedNameSearchArgs = () =>
  z.strictObject({ q: query.optional(), limit: limitParam(), cursor: Cursor.optional() });
export type PagedNameSearchArgs = z.infer<ReturnType<typeof pagedNameSearchArgs>>;

/** search_creatives and search_webmasters: a paged name search that can also rank look-alikes of one entity. */
export const similarNameSearchArgs = (similarTo: string) => pagedNameSearchArgs().extend({ similar_to: Id.optional().describe(similarTo) });
export type SimilarNameSearchArgs = z.infer<ReturnType<typeof similarNameSearchArgs>>;

export const advertiserActivityArgs = () =>
  z
    .strictObject({
      id: Id,
      date_from: IsoDate.optional().describe('default 30 days before date_to'),
      date_to: IsoDate.optional().describe('default the latest day with data'),
    })
    .superRefine(datesInOrder);
export type AdvertiserActivityArgs = z.infer<ReturnType<typeof advertiserActivityArgs>>;

export const pagedByIdArgs = () => z.strictObject({ id: Id, limit: limitParam(), cursor: Cursor.optional() });
export type PagedByIdArgs = z.infer<ReturnType<typeof pagedByIdArgs>>;

export const domainArgs = () => z.strictObject({ domain: domainName });

export const noArgs = () => z.strictObject({});
