import { DatabaseSync } from 'node:sqlite';
import type { AdChangesQuery, AdChangesResult, AdStore, SyncPort } from '../ad-store.port';
import { AdReader, type ReaderTuning } from './ad-reader';
import { ChangeFeedReader } from './change-feed-reader';
import { EntityReader } from './entity-reader';
import { GenerationCache } from './generation-cache';
import { ReaderColumns } from './shared-columns';
import { applyPragmasForReading } from './schema';

/** What a query worker serves: every read of the port, synchronous. */
type StoreReads = SyncPort<Omit<AdStore, 'close'>>;
/** The methods a worker call may name: every read of the port. */
export type ReaderMethod = keyof StoreReads & keyof SqliteReader;

/** How a reader finds its ad columns. */
export interface ReaderOptions extends ReaderTuning {
  /**
   * Take the columns the live writer of this process publishes (shared-columns.ts) when there are some for what a
   * read sees; false: always derive them from the store (tests of that path). Default true.
   */
  readonly follow?: boolean;
}

/**
 * Every read of the SQLite store, synchronous (node:sqlite), on one read-only connection. Runs inside a
 * worker thread of the pool (or in-process when the pool has no workers). Ads: `./ad-reader`; entity
 * records and the catalog: `./entity-reader`.
 *
 * Each read runs in a read transaction of its own, so no snapshot is held between reads (the writer's checkpoints
 * never wait for an idle reader), and takes the ad columns the live writer published for the batch it sees: a
 * reader does no work per batch (ADR 0009).
 */
export class SqliteReader implements StoreReads {
  private readonly db: DatabaseSync;
  private readonly cache: GenerationCache;
  private readonly ads: AdReader;
  private readonly entities: EntityReader;
  private readonly feed: ChangeFeedReader;
  private readonly columns: ReaderColumns;

  constructor(file: string, options: ReaderOptions = {}) {
    this.db = new DatabaseSync(file, { readOnly: true });
    applyPragmasForReading(this.db);
    this.cache = new GenerationCache(this.db);
    // One set of columns per reader: the feed checks its filters on the same columns the searches use.
    this.columns = new ReaderColumns(this.db, file, options.follow ?? true);
    this.entities = new EntityReader(this.db, this.cache, this.columns);
    this.feed = new ChangeFeedReader(this.db, this.columns);
    this.ads = new AdReader(this.db, this.cache, this.entities, this.columns, options);
  }

  /**
   * Runs one read in a read transaction: every statement of it sees the same live batches, and the columns are those
   * of that batch, so a query sees a batch whole or not at all.
   */
  private read<T>(run: () => T): T {
    this.columns.beforeRead();
    this.db.exec('BEGIN');
    try {
      return run();
    } finally {
      // A statement that failed may have ended the transaction already.
      if (this.db.isTransaction) this.db.exec('COMMIT');
      this.columns.afterRead();
    }
  }

  /** Times this reader derived its ad columns itself instead of taking the live writer's (not on the port: for tests). */
  get columnsDerived(): number {
    return this.columns.derivations;
  }

  /** Loads the in-memory columns ahead of the first request (workers call it at start). */
  warmUp(): void {
    this.read(() => this.ads.columnarAds());
  }

  close(): void {
    this.columns.close();
    if (this.db.isOpen) this.db.close();
  }

  ping(): void {
    if (!this.cache.generation()) throw new Error('the store holds no finished data yet (run the seed or ingest command)');
  }

  /** With the change position of the same snapshot: the watermark names exactly what the page saw. */
  searchAds: StoreReads['searchAds'] = (query) => this.read(() => ({ ...this.ads.searchAds(query), position: this.feed.position() }));
  adChanges = (query: AdChangesQuery): AdChangesResult => this.read(() => this.feed.changes(query));
  countAds: StoreReads['countAds'] = (filter, exactUpTo) => this.read(() => this.ads.countAds(filter, exactUpTo));
  getAd: StoreReads['getAd'] = (id) => this.read(() => this.ads.getAd(id));
  breakdown: StoreReads['breakdown'] = (filter, field, limit) => this.read(() => this.ads.breakdown(filter, field, limit));
  trends: StoreReads['trends'] = (query) => this.read(() => this.ads.trends(query));

  searchAdvertisers: StoreReads['searchAdvertisers'] = (query) => this.read(() => this.entities.searchAdvertisers(query));
  getAdvertiser: StoreReads['getAdvertiser'] = (id) => this.read(() => this.entities.getAdvertiser(id));
  advertiserActivity: StoreReads['advertiserActivity'] = (id, range) => this.read(() => this.entities.advertiserActivity(id, range));
  searchWebmasters: StoreReads['searchWebmasters'] = (query) => this.read(() => this.entities.searchWebmasters(query));
  getWebmaster: StoreReads['getWebmaster'] = (id) => this.read(() => this.entities.getWebmaster(id));
  webmasterAdvertisers: StoreReads['webmasterAdvertisers'] = (id, page) => this.read(() => this.entities.webmasterAdvertisers(id, page));
  searchCreatives: StoreReads['searchCreatives'] = (query) => this.read(() => this.entities.searchCreatives(query));
  getCreative: StoreReads['getCreative'] = (id) => this.read(() => this.entities.getCreative(id));
  creativeRows: StoreReads['creativeRows'] = (ids) => this.read(() => this.entities.creativeRows(ids));
  heldMedia: StoreReads['heldMedia'] = (query) => this.read(() => this.entities.heldMedia(query));
  creativePictureHashes: StoreReads['creativePictureHashes'] = () => this.read(() => this.entities.creativePictureHashes());
  searchDomains: StoreReads['searchDomains'] = (query) => this.read(() => this.entities.searchDomains(query));
  getDomain: StoreReads['getDomain'] = (domain) => this.read(() => this.entities.getDomain(domain));
  searchApps: StoreReads['searchApps'] = (query) => this.read(() => this.entities.searchApps(query));
  getApp: StoreReads['getApp'] = (id) => this.read(() => this.entities.getApp(id));
  catalog: StoreReads['catalog'] = () => this.read(() => ({ ...this.entities.catalog(), coverage: this.ads.coverage() }));
}
