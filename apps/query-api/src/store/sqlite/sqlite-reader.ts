import { DatabaseSync } from 'node:sqlite';
import type { AdStore, SyncPort } from '../ad-store.port';
import { AdReader, type ReaderTuning } from './ad-reader';
import { EntityReader } from './entity-reader';
import { GenerationCache } from './generation-cache';
import { applyPragmasForReading } from './schema';

/** What a query worker serves: every read of the port, synchronous. */
type StoreReads = SyncPort<Omit<AdStore, 'close'>>;
/** The methods a worker call may name (every read of the port). */
export type ReaderMethod = keyof StoreReads & keyof SqliteReader;

/**
 * Every read of the SQLite store, synchronous (node:sqlite), on one read-only connection. Runs inside a
 * worker thread of the pool (or in-process when the pool has no workers). Ads: `./ad-reader`; entity
 * records and the catalog: `./entity-reader`.
 */
export class SqliteReader implements StoreReads {
  private readonly db: DatabaseSync;
  private readonly cache: GenerationCache;
  private readonly ads: AdReader;
  private readonly entities: EntityReader;

  constructor(file: string, options: ReaderTuning = {}) {
    this.db = new DatabaseSync(file, { readOnly: true });
    applyPragmasForReading(this.db);
    this.cache = new GenerationCache(this.db);
    this.entities = new EntityReader(this.db, this.cache);
    this.ads = new AdReader(this.db, this.cache, this.entities, options);
  }

  /** Loads the in-memory columns ahead of the first request (workers call it at start). */
  warmUp(): void {
    if (this.cache.generation()) this.ads.columnarAds();
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  ping(): void {
    if (!this.cache.generation()) throw new Error('the store holds no finished data yet (run the seed or ingest command)');
  }

  searchAds: StoreReads['searchAds'] = (query) => this.ads.searchAds(query);
  countAds: StoreReads['countAds'] = (filter, exactUpTo) => this.ads.countAds(filter, exactUpTo);
  getAd: StoreReads['getAd'] = (id) => this.ads.getAd(id);
  breakdown: StoreReads['breakdown'] = (filter, field, limit) => this.ads.breakdown(filter, field, limit);
  trends: StoreReads['trends'] = (query) => this.ads.trends(query);

  searchAdvertisers: StoreReads['searchAdvertisers'] = (query) => this.entities.searchAdvertisers(query);
  getAdvertiser: StoreReads['getAdvertiser'] = (id) => this.entities.getAdvertiser(id);
  advertiserActivity: StoreReads['advertiserActivity'] = (id, range) => this.entities.advertiserActivity(id, range);
  searchWebmasters: StoreReads['searchWebmasters'] = (query) => this.entities.searchWebmasters(query);
  getWebmaster: StoreReads['getWebmaster'] = (id) => this.entities.getWebmaster(id);
  webmasterAdvertisers: StoreReads['webmasterAdvertisers'] = (id, page) => this.entities.webmasterAdvertisers(id, page);
  searchCreatives: StoreReads['searchCreatives'] = (query) => this.entities.searchCreatives(query);
  getCreative: StoreReads['getCreative'] = (id) => this.entities.getCreative(id);
  searchDomains: StoreReads['searchDomains'] = (query) => this.entities.searchDomains(query);
  getDomain: StoreReads['getDomain'] = (domain) => this.entities.getDomain(domain);
  searchApps: StoreReads['searchApps'] = (query) => this.entities.searchApps(query);
  getApp: StoreReads['getApp'] = (id) => this.entities.getApp(id);
  catalog: StoreReads['catalog'] = () => this.entities.catalog();
}
