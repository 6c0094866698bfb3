import type { Client, estypes } from '@elastic/elasticsearch';
import type {
  Ad,
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  BreakdownField,
  CreativeRow,
  Domain,
  DomainRow,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type {
  ActivityDayData,
  AdChangesQuery,
  AdChangesResult,
  AdFilter,
  AdSearchQuery,
  AdStore,
  BreakdownResult,
  CatalogData,
  ChangePosition,
  CountResult,
  DateRange,
  KeysetPage,
  NameQuery,
  PagedNameQuery,
  SortKey,
  TrendQuery,
  TrendResult,
  AdDetailRecord,
  CreativeHash,
  CreativeRecord,
} from '../ad-store.port';
import type { RecordMedia } from '../record-media';
import type { AdDocument } from './ad-document';
import type { FeedPosition } from './change-feed';
import { changesPageFrom, changesRequest, positionFrom, positionGetRequest } from './queries/feed.query';
import { createElasticsearchClient, type ElasticsearchSettings, toServiceError } from './es-client';
import { type EntityKind, indexNames, type IndexNames } from './index-names';
import {
  adDetailFrom,
  adsPageFrom,
  breakdownFrom,
  type BreakdownAggs,
  breakdownRequest,
  countAdsRequest,
  countFrom,
  getAdRequest,
  searchAdsRequest,
} from './queries/ads.query';
import {
  activityFrom,
  advertiserActivityRequest,
  type CatalogAggs,
  catalogFrom,
  catalogRequest,
  type EntityDocument,
  entityByIdRequest,
  entityFrom,
  entityPageFrom,
  nameSearchRequest,
  webmasterAdvertisersRequest,
} from './queries/entities.query';
import { toAdvertiserMatch, toAppRow, toCreativeRow, toDomainRow, toWebmasterRow } from './queries/rollups.query';
import { chunks } from './queries/live.query';
import {
  creativeHashesFrom,
  creativeHashesRequest,
  creativeRowsFrom,
  creativeRowsRequest,
  heldAdMediaRequest,
  heldCreativeMediaRequest,
  heldMediaFrom,
  type HeldMediaSource,
} from './queries/lookalikes.query';
import {
  byGrowth,
  type DailyAggs,
  type DetailBucket,
  type RankedBucket,
  type RowsAggs,
  type ScalingPageAggs,
  type TimelineAggs,
  type GrowthCandidate,
  isRankedDimension,
  previousCountsFrom,
  previousCountsRequest,
  rankedKeysFrom,
  rankedTrendFrom,
  rankedTrendRequest,
  scalingDetailRequest,
  scalingPageFrom,
  scalingPageRequest,
  scalingTrendFrom,
  timelineFrom,
  timelineRequest,
} from './queries/trends.query';

/** Upper bound on composite pages walked for scaling creatives (5,000 creatives each). */
const MAX_SCALING_PAGES = 200;

/**
 * The production engine: the port answered from Elasticsearch. Request bodies come from the pure
 * builders in ./queries; this class only sends them and maps failures to typed errors
 * (unreachable -> unavailable, slow -> timeout).
 */
export class ElasticsearchAdStore implements AdStore {
  readonly engine = 'elasticsearch' as const;
  private readonly names: IndexNames;

  constructor(
    private readonly client: Client,
    indexPrefix: string,
    private readonly ownsClient = false,
  ) {
    this.names = indexNames(indexPrefix);
  }

  static fromSettings(settings: ElasticsearchSettings): ElasticsearchAdStore {
    return new ElasticsearchAdStore(createElasticsearchClient(settings), settings.indexPrefix, true);
  }

  async ping(): Promise<void> {
    await this.call('ping', () => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** The position is read before the page: a change after it is in the next feed (perhaps twice), never lost. */
  async searchAds(query: AdSearchQuery): Promise<KeysetPage<Ad> & { position?: ChangePosition }> {
    const held = await this.feedPosition();
    const response = await this.search<Partial<AdDocument>>('searchAds', searchAdsRequest(this.names.ads, query));
    const page = adsPageFrom(response, query);
    return held ? { ...page, position: { store: held.store, seq: held.seq } } : page;
  }

  /** The change feed (change-feed.ts): the ads whose `feed_since` holds the watermark, up to the published position. */
  async adChanges(query: AdChangesQuery): Promise<AdChangesResult> {
    const held = await this.feedPosition();
    if (!held || query.since.store !== held.store || query.since.seq > held.seq) return { outcome: 'foreign' };
    if (query.since.seq < held.from) return { outcome: 'expired' };
    const position = { store: held.store, seq: held.seq };
    if (query.since.seq === held.seq) return { outcome: 'page', page: { rows: [], hasMore: false, lastKey: null }, count: { total: 0, estimated: false }, position };
    const response = await this.search<Partial<AdDocument>>('adChanges', changesRequest(this.names.ads, query, held.seq));
    return { outcome: 'page', ...changesPageFrom(response, query), position };
  }

  /** A realtime get of the position document (none: no load or live batch has written one yet). */
  private async feedPosition(): Promise<FeedPosition | undefined> {
    const response = await this.call('read feed position', () => this.client.get<FeedPosition>(positionGetRequest(this.names.feed), { ignore: [404] }));
    return positionFrom(response)?.position;
  }

  async countAds(filter: AdFilter, exactUpTo: number): Promise<CountResult> {
    return countFrom(await this.search('countAds', countAdsRequest(this.names.ads, filter, exactUpTo)), exactUpTo);
  }

  async getAd(id: string): Promise<AdDetailRecord | null> {
    const response = await this.search<Partial<AdDocument>>('getAd', getAdRequest(this.names.ads, id));
    const advertiserId = response.hits.hits[0]?._source?.advertiser_id;
    const advertiser = advertiserId ? await this.entity<Advertiser>('advertisers', advertiserId) : null;
    return adDetailFrom(response, advertiser?.platforms ?? null);
  }

  async breakdown(filter: AdFilter, field: BreakdownField, limit: number): Promise<BreakdownResult> {
    const result = breakdownFrom(await this.search<unknown, BreakdownAggs>('breakdown', breakdownRequest(this.names.ads, filter, field, limit)));
    if (field !== 'advertiser' && field !== 'webmaster') return result;
    // Names follow the entity records (their name rule), one lookup per bucket (at most `limit`).
    const kind = field === 'advertiser' ? 'advertisers' : 'webmasters';
    const buckets = await Promise.all(
      result.buckets.map(async (b) => ({ ...b, label: (await this.entity<{ name: string }>(kind, b.key))?.name ?? b.key })),
    );
    return { ...result, buckets };
  }

  async trends(query: TrendQuery): Promise<TrendResult> {
    const dimension = query.dimension;
    if (isRankedDimension(dimension)) {
      const current = await this.search<unknown, RowsAggs<RankedBucket>>('trends', rankedTrendRequest(this.names.ads, { ...query, dimension }));
      const keys = rankedKeysFrom(current);
      const previous = keys.length
        ? previousCountsFrom(
            await this.search<unknown, RowsAggs>('trends', previousCountsRequest(this.names.ads, dimension, query.filter, query.previous, keys)),
          )
        : new Map<string, number>();
      return rankedTrendFrom(dimension, current, previous);
    }
    if (dimension === 'timeline') return timelineFrom(query, await this.search<unknown, TimelineAggs>('trends', timelineRequest(this.names.ads, query)));
    return this.scalingCreatives(query);
  }

  private async scalingCreatives(query: TrendQuery): Promise<TrendResult> {
    let after: estypes.AggregationsCompositeAggregateKey | undefined;
    let totalAds = 0;
    let best: GrowthCandidate[] = [];
    for (let page = 0; page < MAX_SCALING_PAGES; page++) {
      const parsed = scalingPageFrom(await this.search<unknown, ScalingPageAggs>('trends', scalingPageRequest(this.names.ads, query, after)));
      if (page === 0) totalAds = parsed.totalAds ?? 0;
      best = [...best, ...parsed.candidates].sort(byGrowth).slice(0, query.limit);
      if (!parsed.after) break;
      after = parsed.after;
    }
    if (!best.length) return { totalAds, rows: [] };
    const keys = best.map((c) => c.key);
    return scalingTrendFrom(best, totalAds, await this.search<unknown, RowsAggs<DetailBucket>>('trends', scalingDetailRequest(this.names.ads, query, keys)));
  }

  async searchAdvertisers(query: NameQuery): Promise<AdvertiserMatch[]> {
    return (await this.entityPage<Advertiser, AdvertiserMatch>('advertisers', query, toAdvertiserMatch)).rows;
  }

  getAdvertiser(id: string): Promise<Advertiser | null> {
    return this.entity<Advertiser>('advertisers', id);
  }

  async advertiserActivity(id: string, range: DateRange): Promise<ActivityDayData[] | null> {
    if (!(await this.entity<Advertiser>('advertisers', id))) return null;
    return activityFrom(range, await this.search<unknown, DailyAggs>('advertiserActivity', advertiserActivityRequest(this.names.ads, id, range)));
  }

  searchWebmasters(query: PagedNameQuery): Promise<KeysetPage<WebmasterRow>> {
    return this.entityPage<Webmaster, WebmasterRow>('webmasters', query, toWebmasterRow);
  }

  getWebmaster(id: string): Promise<Webmaster | null> {
    return this.entity<Webmaster>('webmasters', id);
  }

  async webmasterAdvertisers(
    id: string,
    page: { limit: number; after?: SortKey },
  ): Promise<KeysetPage<AdvertiserMatch> | null> {
    if (!(await this.entity<Webmaster>('webmasters', id))) return null;
    const request = webmasterAdvertisersRequest(this.names.entity('advertisers'), id, page);
    return entityPageFrom(await this.search<Partial<EntityDocument<Advertiser>>>('webmasterAdvertisers', request), page.limit, toAdvertiserMatch);
  }

  searchCreatives(query: PagedNameQuery): Promise<KeysetPage<CreativeRow>> {
    return this.entityPage<CreativeRecord, CreativeRow>('creatives', query, toCreativeRow);
  }

  getCreative(id: string): Promise<CreativeRecord | null> {
    return this.entity<CreativeRecord>('creatives', id);
  }

  async creativeRows(ids: readonly string[]): Promise<CreativeRow[]> {
    if (!ids.length) return [];
    return creativeRowsFrom(ids, await this.search('creative rows', creativeRowsRequest(this.names.entity('creatives'), ids)));
  }

  searchDomains(query: PagedNameQuery): Promise<KeysetPage<DomainRow>> {
    return this.entityPage<Domain, DomainRow>('domains', query, toDomainRow);
  }

  getDomain(domain: string): Promise<Domain | null> {
    return this.entity<Domain>('domains', domain);
  }

  searchApps(query: PagedNameQuery): Promise<KeysetPage<AppRow>> {
    return this.entityPage<App, AppRow>('apps', query, toAppRow);
  }

  getApp(id: string): Promise<App | null> {
    return this.entity<App>('apps', id);
  }

  async catalog(): Promise<CatalogData> {
    return catalogFrom(await this.search<unknown, CatalogAggs>('catalog', catalogRequest(this.names.ads)));
  }

  async creativePictureHashes(): Promise<CreativeHash[]> {
    const hashes: CreativeHash[] = [];
    for (let after: string | null = null, first = true; first || after !== null; first = false) {
      const page = creativeHashesFrom(await this.search('creative hashes', creativeHashesRequest(this.names.entity('creatives'), after)));
      hashes.push(...page.hashes);
      after = page.next;
    }
    return hashes;
  }

  async heldMedia(query: { adIds: readonly string[]; creativeIds: readonly string[] }): Promise<RecordMedia[]> {
    // In chunks of LIVE_CHUNK ids, as the live writer reads stored copies: a batch may hold up to 10,000 lines.
    const requests = [
      ...chunks(query.adIds).map((ids) => heldAdMediaRequest(this.names.ads, ids)),
      ...chunks(query.creativeIds).map((ids) => heldCreativeMediaRequest(this.names.entity('creatives'), ids)),
    ];
    const held: RecordMedia[] = [];
    for (const request of requests) held.push(...heldMediaFrom(await this.search<HeldMediaSource>('held media', request)));
    return held;
  }

  private async entityPage<R, T>(kind: EntityKind, query: NameQuery | PagedNameQuery, project: (record: R) => T) {
    const request = nameSearchRequest(this.names.entity(kind), query);
    return entityPageFrom(await this.search<Partial<EntityDocument<R>>>(`search ${kind}`, request), query.limit, project);
  }

  private async entity<R>(kind: EntityKind, id: string): Promise<R | null> {
    const request = entityByIdRequest(this.names.entity(kind), id);
    return entityFrom(await this.search<Partial<EntityDocument<R>>>(`get ${kind}`, request));
  }

  /** `A`: the aggregations the request names, as its parser reads them (the client's own type parameter). */
  private search<T = unknown, A = Record<string, estypes.AggregationsAggregate>>(operation: string, request: estypes.SearchRequest): Promise<estypes.SearchResponse<T, A>> {
    return this.call(operation, () => this.client.search<T, A>(request));
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toServiceError(error, operation);
    }
  }
}
