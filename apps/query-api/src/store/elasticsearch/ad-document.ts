import type { Ad, AppStore } from '@adintel/contracts';
import type { RecordMedia } from '../record-media';
import type { AdRecord } from '../ad-store.port';
import { landingDomainSuffixes, normaliseHost } from './domain-suffixes';

/** The change feed's fields of an ad document (change-feed.ts writes and reads them). */
/** The state after each change: [batch, visibleState]. The first entry is the state at `added` or at the floor. */
export interface FeedHistory {
  added: number;
  states: [number, string][];
}

export interface FeedRange {
  gte: number;
  lt: number;
}

export interface FeedFields {
  change_seq: number;
  changed_at: string;
  feed_since: FeedRange[];
  feed: FeedHistory;
}

/** One ad as stored in `<prefix>-ads-YYYY.MM` (see mappings.ts); the feed fields only once the live path changed it (change-feed.ts). */
export interface AdDocument extends Ad, Partial<FeedFields> {
  landing_domain_suffixes: string[];
  registrable_domain: string;
  advertiser_name: string;
  platform_account: string;
  webmaster_name: string | null;
  active_period: { gte: string; lte: string };
  creative_title: string;
  media: RecordMedia[];
  app: { id: string; name: string; store: AppStore; bundle_id: string } | null;
}

export function toAdDocument(record: AdRecord): AdDocument {
  const host = normaliseHost(record.landing_domain);
  return {
    id: record.id,
    title: record.title,
    body: record.body,
    landing_domain: host,
    landing_url: record.landing_url,
    destination_type: record.destination_type,
    platform_name: record.platform_name,
    advertiser_id: record.advertiser_id,
    webmaster_id: record.webmaster_id,
    status_today: record.status_today,
    days_active: record.days_active,
    first_seen_date: record.first_seen_date,
    last_seen_date: record.last_seen_date,
    countries: record.countries,
    languages: record.languages,
    categories: record.categories,
    creative_format: record.creative_format,
    media_count: record.media_count,
    creative_id: record.creative_id,
    app_id: record.app_id,
    impressions: record.impressions,
    popularity: record.popularity,
    activity_days_amount: record.activity_days_amount,
    landing_domain_suffixes: landingDomainSuffixes(host),
    registrable_domain: record.registrable_domain,
    advertiser_name: record.advertiser_name,
    platform_account: `${record.platform_name}:${record.advertiser_account_id}`,
    webmaster_name: record.webmaster_name,
    active_period: { gte: record.first_seen_date, lte: record.last_seen_date },
    creative_title: record.creative_title,
    media: record.media,
    app: record.app,
  };
}

/** The `_source` fields that make up the contract's Ad (the search request asks for exactly these). */
export const AD_FIELDS = [
  'id',
  'title',
  'body',
  'landing_domain',
  'landing_url',
  'destination_type',
  'platform_name',
  'advertiser_id',
  'webmaster_id',
  'status_today',
  'days_active',
  'first_seen_date',
  'last_seen_date',
  'countries',
  'languages',
  'categories',
  'creative_format',
  'media_count',
  'creative_id',
  'app_id',
  'impressions',
  'popularity',
  'activity_days_amount',
] as const satisfies readonly (keyof Ad)[];

/** Back from `_source` to the contract's Ad, field by field (extra stored fields never leak out). */
export function adFromSource(source: Partial<AdDocument>): Ad {
  const ad: Record<string, unknown> = {};
  for (const field of AD_FIELDS) ad[field] = source[field] ?? null;
  ad['webmaster_id'] = source.webmaster_id ?? null;
  ad['app_id'] = source.app_id ?? null;
  return ad as unknown as Ad;
}
