/**
 * The repository port of query-api: everything the services need from a store, engine-agnostic.
 *
 * Two adapters implement it: SQLite (`./sqlite`, the default) and Elasticsearch (`./elasticsearch`).
 * Adapters only do I/O: cursor signing, evidence, share/change maths, labels and response shaping
 * live in the services. Both adapters are pinned by one suite, `./store.contract.ts`.
 *
 * Conventions every adapter follows (the contract suite checks them):
 * - Dates are ISO `YYYY-MM-DD` strings (UTC); comparisons are on those strings.
 * - Ids are opaque strings; ties in every ordering are broken by id (ascending unless stated).
 * - "Words": text is lower-cased and split on every character that is not a Unicode letter or digit.
 * - An ad is "active in a window" [from, to] when first_seen_date <= to AND last_seen_date >= from.
 * - "Registrable domain" = tldts `getDomain(host)` (Public Suffix List); hosts are lower-case.
 */
import type {
  AdChange,
  AdSort,
  AdStatus,
  AppStore,
  BreakdownField,
  CreativeFormat,
  DestinationType,
  Platform,
  SortOrder,
  TrendDimension,
} from '@adintel/contracts';
import type {
  Ad,
  AdDetail,
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  Creative,
  CreativeRow,
  Domain,
  DomainRow,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type { RecordMedia } from './record-media';

export type { RecordMedia, StoredMedia } from './record-media';

/** Nest injection token of the active AdStore. */
export const AD_STORE = Symbol('AD_STORE');
/**
 * Nest injection token of the live writer's opener (LiveWriterFactory), chosen with the engine (store.module.ts).
 * Opened on first use: a replica that never receives a sighting never opens its store for writing.
 */
export const LIVE_WRITER_FACTORY = Symbol('LIVE_WRITER_FACTORY');

// ---------------------------------------------------------------------------------------------
// Ingest

/**
 * One ad as the ingest command hands it to a store: the contract `Ad` with every derived field
 * already computed (landing_domain = host of landing_url, days_active, media_count), plus what the
 * entity records need. Produced from an NDJSON line by `src/ingest` (validated with zod there).
 */
export interface AdRecord extends Ad {
  /** As ingested, with the stored file of each entry (src/media); the engines keep it as written. */
  media: RecordMedia[];
  /** tldts getDomain(landing_domain); equals landing_domain when the host is the registrable domain. */
  registrable_domain: string;
  advertiser_name: string;
  /** The advertiser's account id on this ad's platform (advertisers are merged across platforms). */
  advertiser_account_id: string;
  webmaster_name: string | null;
  /**
   * Title of the creative as this ad carries it. When the ads of one creative disagree, the entity
   * record (and the scaling-creatives label) take the title of its ad with the lowest id.
   */
  creative_title: string;
  app: { id: string; name: string; store: AppStore; bundle_id: string } | null;
}

/** get_ad and get_creative as the engines hold them: the media as ingested (the services give the public form). */
export type AdDetailRecord = Omit<AdDetail, 'media'> & { media: RecordMedia[] };
export type CreativeRecord = Omit<Creative, 'media'> & { media: RecordMedia[] };

export interface CreativeHash {
  id: string;
  phash: string;
}

export interface RejectedRow {
  /** 1-based line number in the source when known, else 0. */
  line: number;
  id: string | null;
  reason: string;
}

export interface WriteResult {
  written: number;
  rejected: RejectedRow[];
}

/** What one live batch did (see AdStoreWriter.apply). */
export interface ApplyResult {
  /** Ads whose id the store did not hold. */
  added: number;
  /** Re-sightings: a known id whose record changed, replaced. */
  replaced: number;
  /** Records identical to what the store holds (a re-delivery): nothing changed, nothing counted twice. */
  unchanged: number;
  rejected: RejectedRow[];
}

/**
 * Writing side of a store (used by the ingest/seed commands, never by the request path).
 * Writing the same ad id twice replaces the earlier row. An offline load (`write` batches, then `finish`) is built
 * beside the store readers are served and switched in whole at `finish`: stopped before, it leaves the served store
 * as it was (SQLite: a new file renamed over the old; Elasticsearch: a new generation of indices behind the aliases).
 */
export interface AdStoreWriter {
  /** Number of ads stored (seed uses it to stay idempotent). */
  size(): Promise<number>;
  /** Drop every ad and derived record of the load being built (the store readers are served stays as it is until finish). */
  clear(): Promise<void>;
  write(batch: readonly AdRecord[]): Promise<WriteResult>;
  /** Build rollups and entity records from everything written so far, and make it visible to readers. */
  finish(): Promise<void>;
  /**
   * The live path: applies one batch of sightings (new ads, and re-sightings that replace a known id) on top of a
   * finished store and makes it visible to readers as one unit (a read sees the whole batch or none of it).
   * Applying a record identical to the stored one changes nothing, so a re-delivered batch is harmless.
   */
  apply(batch: readonly AdRecord[]): Promise<ApplyResult>;
  close(): Promise<void>;
}

/**
 * What the live door needs of a writer: apply batches on top of the served store, and close. When apply resolves,
 * this process's readers see the batch (an engine whose readers must move to it does that inside apply).
 */
export type LiveWriter = Pick<AdStoreWriter, 'apply' | 'close'>;
export type LiveWriterFactory = () => LiveWriter;

// ---------------------------------------------------------------------------------------------
// Normalised queries

/**
 * The /ads filters after validation and normalisation. Every present filter must hold (AND).
 * Absent = no constraint.
 */
export interface AdFilter {
  /**
   * Lower-cased words of `q` (see "Words" above), non-empty when present. An ad matches when EVERY
   * word occurs as a whole word in its title, its body or its landing_url (words may be in different
   * fields). No stemming, no prefix matching.
   */
  words?: string[];
  /** Upper-case ISO code; the ad's `countries` contains it. */
  country?: string;
  /** The ad's platform is one of these. */
  platforms?: Platform[];
  /** The ad's `categories` contains at least one of these. */
  categories?: string[];
  status?: AdStatus;
  destinationType?: DestinationType;
  advertiserId?: string;
  webmasterId?: string;
  /** Lower-case host: the ad's landing_domain equals it or ends with `.` + it. Never a look-alike. */
  landingDomain?: string;
  appId?: string;
  creativeId?: string;
  /** Ads active at any time in [dateFrom, dateTo]: last_seen_date >= dateFrom, first_seen_date <= dateTo. */
  dateFrom?: string;
  dateTo?: string;
}

/** Position of a row in an ordering: its sort value and its id (the tiebreaker). */
export interface SortKey {
  value: string | number;
  id: string;
}

/**
 * Sort value per AdSort: date -> first_seen_date (string), days_active, activity_days_amount,
 * most_popular -> popularity, impressions (numbers). The id tiebreaker goes in the SAME direction as
 * `order` (desc: higher id first).
 */
export interface AdSearchQuery {
  filter: AdFilter;
  sort: AdSort;
  order: SortOrder;
  limit: number;
  /** Return only ads strictly after this position in the ordering. */
  after?: SortKey;
}

export interface KeysetPage<T> {
  rows: T[];
  /** Whether rows exist after the last row returned. */
  hasMore: boolean;
  /** Position of the last row returned (null when `rows` is empty). */
  lastKey: SortKey | null;
}

/**
 * A store's position in its stream of live batches (the change feed, issue 36): `store` names the loaded data (a
 * reload is another store), `seq` the newest live batch applied.
 */
export interface ChangePosition {
  store: string;
  seq: number;
}

/**
 * The ads matching `filter` (on their state now) whose visible state differs between `since` and now, in change order:
 * the seq of each ad's last change ascending, then id. `after` is a SortKey with the seq as `value`.
 */
export interface AdChangesQuery {
  filter: AdFilter;
  since: ChangePosition;
  limit: number;
  after?: SortKey;
  /** Count the feed's rows up to this many (search_ads' total, count_ads); the rows past `limit` are only counted. */
  countUpTo: number;
}

/** A feed row: the ad now, what changed since the position, and when (ISO time its batch was applied). */
export type ChangedAd = Ad & { change: AdChange; changed_at: string };

/**
 * `expired`: the log no longer reaches back to `since` (retention); `foreign`: `since` is not a position of this store
 * (another store, a reload, or ahead of it). Either way the caller must re-baseline with a plain search.
 */
export type AdChangesResult =
  | { outcome: 'page'; page: KeysetPage<ChangedAd>; count: CountResult; position: ChangePosition }
  | { outcome: 'expired' | 'foreign' };

export interface CountResult {
  total: number;
  /** false: `total` is exact. true: there are more than `exactUpTo` matches and `total` is `exactUpTo`. */
  estimated: boolean;
}

export interface KeyCount {
  key: string;
  ads: number;
  /** The entity's name, for advertiser and webmaster keys. */
  label?: string;
}

/**
 * Breakdown keys: country (ISO code), platform, category (slug), language, creative_format,
 * landing_domain (the REGISTRABLE domain), destination_type, status (active|inactive), advertiser (id), webmaster (id;
 * ads without one are left out). An ad with several countries, languages or categories counts once in each.
 * Advertiser and webmaster buckets carry the entity's name as `label` (the record's name rule).
 */
export interface BreakdownResult {
  /** Exact number of ads matching the filter. */
  total: number;
  /** Top `limit` buckets by ads desc, key asc. */
  buckets: KeyCount[];
}

export interface DateRange {
  from: string;
  to: string;
}

export interface TrendFilter {
  country?: string;
  platform?: Platform;
  category?: string;
}

export interface TrendQuery {
  dimension: TrendDimension;
  filter: TrendFilter;
  window: DateRange;
  /** The previous window of equal length, ending the day before window.from (computed by the service). */
  previous: DateRange;
  limit: number;
}

/**
 * Raw detail per dimension. "The row's ads" = ads active in `window` under the filter that belong to
 * the row's key. Top lists are ordered by ads desc, key asc.
 */
export type TrendDetailData =
  /** geo: advertisers = distinct advertisers of the row's ads; top_categories = top 3 categories. */
  | { advertisers: number; top_categories: string[] }
  /**
   * advertisers/cards: name; platforms = distinct platforms of the row's ads (sorted);
   * active_ads = the row's ads with status_today active; creatives = distinct creatives of the row's
   * ads; top_countries = top 3; sample_ad_ids = up to 3 of the row's ads, first_seen_date desc, id desc.
   */
  | {
      name: string;
      platforms: Platform[];
      active_ads: number;
      creatives: number;
      top_countries: string[];
      sample_ad_ids: string[];
    }
  /** webmasters: dominant_country = top country of the row's ads (null if none); advertisers distinct. */
  | { dominant_country: string | null; advertisers: number }
  /** apps: the app's store and bundle id; advertisers = distinct advertisers of the row's ads. */
  | { store: AppStore; bundle_id: string; advertisers: number }
  /** timeline: new_ads = ads (under the filter) first seen that day; active_ads = active that day. */
  | { date: string; new_ads: number; active_ads: number }
  /** scaling-creatives: creative format; advertiser_id = advertiser with most of the row's ads. */
  | { creative_format: CreativeFormat; advertiser_id: string };

export interface TrendRowData {
  key: string;
  /** Country code, advertiser/webmaster/app name, date, or creative title (services may relabel). */
  label: string;
  /** Ads active in the window (under the filter) for this key. */
  ads: number;
  /** Same count over the previous window (timeline: active ads on the day `window length` earlier). */
  previousAds: number;
  detail: TrendDetailData;
}

/**
 * Rows by dimension:
 * - geo (key = country code), advertisers/cards (advertiser id), webmasters (webmaster id; ads without
 *   webmaster are left out), apps (app id; ads without app left out): top `limit` by ads desc, key asc;
 *   keys with 0 ads in the window are left out.
 * - timeline: one row per day of the window (key = label = date), ascending, `limit` ignored
 *   (the service trims); ads = active_ads that day.
 * - scaling-creatives (creative id): creatives with ads > previousAds, top `limit` by
 *   (ads - previousAds) desc, ads desc, key asc.
 */
export interface TrendResult {
  /** Ads active in the window under the filter (all keys together, each ad once). */
  totalAds: number;
  rows: TrendRowData[];
}

/** Name search: `q` normalised to lower-case words joined by one space; absent = everything. */
export interface NameQuery {
  /**
   * Matches when the normalised name (its words joined by one space) starts with `q`, or when the part
   * of it that starts at any word boundary does (prefix and word match). Names: advertiser name,
   * webmaster name, creative title, registrable domain (words split on `.` and `-` too), app name or
   * bundle id.
   */
  q?: string;
  limit: number;
}

/** Paged name search; lists are ordered by ads_total (creatives: ads_count) desc, id asc. */
export interface PagedNameQuery extends NameQuery {
  after?: SortKey;
}

export interface ActivityDayData {
  date: string;
  new_ads: number;
  active_ads: number;
}

/** Values present in the data, for the catalog. */
export interface CatalogData {
  /** Country codes, ads desc then code. */
  countries: string[];
  /** Category slugs, ads desc then slug. */
  categories: string[];
  /** Language codes, ads desc then code. */
  languages: string[];
  /** min(first_seen_date) and max(last_seen_date) over all ads; null when the store is empty. */
  firstSeenDate: string | null;
  lastSeenDate: string | null;
  /**
   * Per platform and country (an ad with several countries counts in each): the ads held and the newest sighting
   * (max last_seen_date). Ordered by platform asc, ads desc, country asc; pairs without ads are left out.
   */
  coverage: CoverageData[];
}

export interface CoverageData {
  platform: Platform;
  country: string;
  ads: number;
  newestSighting: string;
}

// ---------------------------------------------------------------------------------------------
// Reading side

/**
 * Entity records (computed from the ads; a live batch recomputes those it touches). When the ads of one advertiser,
 * webmaster or app disagree on its name (or an app on its store details), the record takes what most of its ads say
 * (ties: the smallest value); a creative's title follows the rule on AdRecord.creative_title.
 * - AdvertiserMatch: ads_total, active_ads (status_today active), platforms (distinct, sorted).
 *   Advertiser adds platform_accounts (distinct, sorted by platform then account_id), creatives and
 *   webmasters (distinct counts), countries (every country: ads desc, code asc; share = ads/ads_total),
 *   categories (ads desc, slug asc), landing_domains (registrable, top 20 by ads desc, name asc),
 *   first/last_seen_date (min/max).
 * - WebmasterRow: ads_total, active_ads, advertisers (distinct), countries as above, dominant_country =
 *   countries[0] or null, relevance = countries[0].share or 0. Webmaster adds categories
 *   ({category, ads, share}, ads desc, slug asc) and landing_domains (top 20 as above).
 * - CreativeRow: title, creative_format, ads_count, advertisers_count, platforms, first/last seen.
 *   Creative adds media (of its ad with the lowest id), countries (ads desc, code asc),
 *   advertiser_ids (top 20 by ads desc, id asc), sample_ad_ids (up to 5, first_seen_date desc, id desc).
 * - DomainRow (domain = registrable): ads_total, active_ads, advertisers. Domain adds subdomains
 *   (every host incl. the registrable itself: {host, ads}, top 50 by ads desc, host asc),
 *   countries (as above), top_advertisers (top 10 {id, name, ads} by ads desc, id asc).
 * - AppRow: name, store, bundle_id, ads_total, advertisers. App adds advertiser_list (top 20
 *   {id, name, ads}) and countries.
 */
export interface AdStore {
  readonly engine: 'sqlite' | 'elasticsearch';

  /** Resolves when the store answers; rejects otherwise (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;

  /** `position`: the store's change position of the same read (the watermark of `pagination`). */
  searchAds(query: AdSearchQuery): Promise<KeysetPage<Ad> & { position?: ChangePosition }>;
  /** The change feed: the ads matching a filter whose visible state moved since a position (store/visible-state.ts). */
  adChanges(query: AdChangesQuery): Promise<AdChangesResult>;
  countAds(filter: AdFilter, exactUpTo: number): Promise<CountResult>;
  getAd(id: string): Promise<AdDetailRecord | null>;
  breakdown(filter: AdFilter, field: BreakdownField, limit: number): Promise<BreakdownResult>;

  trends(query: TrendQuery): Promise<TrendResult>;

  /** Advertisers matching the name query, ads_total desc, id asc. */
  searchAdvertisers(query: NameQuery): Promise<AdvertiserMatch[]>;
  getAdvertiser(id: string): Promise<Advertiser | null>;
  /** One entry per day of the range, ascending; null when the advertiser is unknown. */
  advertiserActivity(id: string, range: DateRange): Promise<ActivityDayData[] | null>;

  searchWebmasters(query: PagedNameQuery): Promise<KeysetPage<WebmasterRow>>;
  getWebmaster(id: string): Promise<Webmaster | null>;
  /**
   * Advertisers with at least one ad by this webmaster, ordered by the advertiser's ads_total desc, id
   * asc; null when the webmaster is unknown.
   */
  webmasterAdvertisers(
    id: string,
    page: { limit: number; after?: SortKey },
  ): Promise<KeysetPage<AdvertiserMatch> | null>;

  searchCreatives(query: PagedNameQuery): Promise<KeysetPage<CreativeRow>>;
  getCreative(id: string): Promise<CreativeRecord | null>;
  /**
   * The list rows of many creatives in one read (a look-alike page ranks up to a few hundred), in the order of `ids`;
   * unknown ids are left out.
   */
  creativeRows(ids: readonly string[]): Promise<CreativeRow[]>;
  /**
   * The perceptual hash of every creative's first picture (the stored media[0] of its ad with the lowest id), for the
   * look-alike index (src/media/lookalikes.ts); creatives without a stored picture are left out. Ordered by id.
   */
  creativePictureHashes(): Promise<CreativeHash[]>;
  /**
   * The media entries (with their stored files) the store holds on these ads and on the first ad (lowest id) of each
   * of these creatives, in one read: the live door keeps what the store holds for a sighting's media URLs and resolves
   * only the others (src/live/live-media.ts). Unknown ids add nothing; the order is not specified.
   */
  heldMedia(query: { adIds: readonly string[]; creativeIds: readonly string[] }): Promise<RecordMedia[]>;

  /** SortKey.id is the domain name. */
  searchDomains(query: PagedNameQuery): Promise<KeysetPage<DomainRow>>;
  /** `domain` is a registrable domain (the service normalises hosts to it). */
  getDomain(domain: string): Promise<Domain | null>;

  searchApps(query: PagedNameQuery): Promise<KeysetPage<AppRow>>;
  getApp(id: string): Promise<App | null>;

  catalog(): Promise<CatalogData>;
}

/**
 * The synchronous mirror of a port: every method returning `Promise<R>` returns `R`. The SQLite reader
 * implements `SyncPort<AdStore>` (its reads are synchronous, run in worker threads), so the compiler
 * checks it against the port instead of the store asserting each result type.
 */
export type SyncPort<P> = {
  [K in keyof P as P[K] extends (...args: never[]) => Promise<unknown> ? K : never]: P[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => R
    : never;
};
