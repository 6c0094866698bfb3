/**
 * Closed vocabularies of the tools' arguments and results (get_catalog lists them for agents).
 * Open-ended sets (categories, countries) are validated by shape, not by list.
 */
export const PLATFORMS = ['facebook', 'tiktok'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const AD_STATUSES = ['active', 'inactive'] as const;
export type AdStatus = (typeof AD_STATUSES)[number];

export const AD_SORTS = ['date', 'days_active', 'activity_days_amount', 'most_popular', 'impressions'] as const;
export type AdSort = (typeof AD_SORTS)[number];

/**
 * What a change feed row says changed since the caller's watermark (search_ads `changed_since`): first seen; went
 * inactive (including ads whose last sighting the data's day moved past); active again; a field an agent sees changed.
 */
export const AD_CHANGES = ['new', 'ended', 'resumed', 'changed'] as const;
export type AdChange = (typeof AD_CHANGES)[number];

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const TREND_DIMENSIONS = [
  'geo',
  'advertisers/cards',
  'webmasters',
  'apps',
  'timeline',
  'scaling-creatives',
] as const;
export type TrendDimension = (typeof TREND_DIMENSIONS)[number];

export const BREAKDOWN_FIELDS = [
  'country',
  'platform',
  'category',
  'language',
  'creative_format',
  'landing_domain',
  'destination_type',
  'status',
  'advertiser',
  'webmaster',
] as const;
export type BreakdownField = (typeof BREAKDOWN_FIELDS)[number];

/** get_ads_breakdown's `field=overview`: these sections at once, the ad total beside them. */
export const OVERVIEW = 'overview';
export const OVERVIEW_SECTIONS = [
  'status',
  'country',
  'category',
  'platform',
  'destination_type',
  'landing_domain',
  'advertiser',
  'webmaster',
] as const satisfies readonly BreakdownField[];

/**
 * Where an ad sends people, derived from its landing URL at ingest by one rules table
 * (apps/query-api/src/ingest/destinations.ts).
 */
export const DESTINATION_TYPES = ['website', 'online_shop', 'marketplace', 'app_store', 'social_profile', 'messenger'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

export const CREATIVE_FORMATS = ['image', 'video', 'carousel', 'text'] as const;
export type CreativeFormat = (typeof CREATIVE_FORMATS)[number];

export const APP_STORES = ['app_store', 'google_play'] as const;
export type AppStore = (typeof APP_STORES)[number];

/** The category slugs the contract names; the full list is open-ended and served by get_catalog. */
export const CONTRACT_CATEGORY_SLUGS = [
  'gambling_and_betting',
  'finance_and_banking',
  'dating_and_relationships',
  'ecommerce_and_retail',
  'healthcare_and_medical',
] as const;

/** Narrowing filters that make `sort_by=impressions` affordable: without one, the sort would rank every ad. */
export const IMPRESSIONS_NARROWING_FILTERS = ['q', 'advertiser_id', 'webmaster_id', 'landing_domain'] as const;

/** The services that answer messages; the edge sends each tool to one of them. */
export type ServiceName = 'query' | 'metering';

export const INTERFACE_VERSION = '1.0.0';
export const MCP_SCOPE = 'mcp:read';
