import { DatabaseSync } from 'node:sqlite';
import type { AdChangesQuery, AdChangesResult, AdStore, SyncPort } from '../ad-store.port';
import { AdReader, type ReaderTuning } from './ad-reader';
import { ChangeFeedReader } from './change-log';
import { EntityReader } from './entity-reader';
import { GenerationCache } from './generation-cache';
import { LiveColumns } from './live-columns';
import { applyPragmasForReading } from './schema';

/** What a query worker serves: every read of the port, synchronous. */
type StoreReads = SyncPort<Omit<AdStore, 'close'>>;
/** The methods a worker call may name: every read of the port, and the two steps of a catch-up round (WorkerPool). */
export type ReaderMethod = (keyof StoreReads & keyof SqliteReader) | 'adChanges' | 'catchUp' | 'checkpointWal';

/** A reader that keeps its snapshot between reads (a query worker's): how old the snapshot may get. */
export interface SnapshotHold {
  /** A read finding its snapshot older than this moves to the newest batch first (writes no catch-up announced). */
  readonly maxAgeMs: number;
}

/**
 * Every read of the SQLite store, synchronous (node:sqlite), on one read-only connection. Runs inside a
 * worker thread of the pool (or in-process when the pool has no workers). Ads: `./ad-reader`; entity
 * records and the catalog: `./entity-reader`.
 *
 * A query worker's reader holds its snapshot (one read transaction) from read to read, so bringing its columns
 * forward over a live batch happens when the pool asks (`catchUp`, one worker at a time, while the others answer
 * from the snapshot they hold) rather than on the path of the next query, where every query queued behind it would
 * wait (docs/performance.md, "Live data").
 */
export class SqliteReader implements StoreReads {
  private readonly db: DatabaseSync;
  private readonly cache: GenerationCache;
  private readonly ads: AdReader;
  private readonly entities: EntityReader;
  private readonly feed: ChangeFeedReader;
  /** When the held snapshot began (performance.now()), or null when none is held. */
  private heldSince: number | null = null;
  /** A writable connection for checkpointWal only (opened on first use). */
  private checkpointer: DatabaseSync | null = null;

  constructor(
    private readonly file: string,
    options: ReaderTuning = {},
    private readonly hold: SnapshotHold | null = null,
  ) {
    this.db = new DatabaseSync(file, { readOnly: true });
    applyPragmasForReading(this.db);
    this.cache = new GenerationCache(this.db);
    this.entities = new EntityReader(this.db, this.cache);
    // One set of columns per reader: the feed checks its filters on the same columns the searches use.
    const columns = new LiveColumns(this.db);
    this.feed = new ChangeFeedReader(this.db, columns);
    this.ads = new AdReader(this.db, this.cache, this.entities, columns, options);
  }

  /**
   * Runs one read in a read transaction: every statement of it sees the same live batches (the columns are brought
   * forward to them first), so a query sees a batch whole or not at all.
   */
  private read<T>(run: () => T): T {
    if (!this.hold) {
      this.db.exec('BEGIN');
      try {
        return run();
      } finally {
        this.db.exec('COMMIT');
      }
    }
    if (this.heldSince !== null && performance.now() - this.heldSince > this.hold.maxAgeMs) this.release();
    if (this.heldSince === null) {
      this.db.exec('BEGIN');
      this.heldSince = performance.now();
    }
    try {
      return run();
    } finally {
      // A statement that failed may have ended the transaction; the next read begins another.
      if (!this.db.isTransaction) this.heldSince = null;
    }
  }

  /** Ends the held snapshot (an idle worker lets the writer's checkpoints pass); the next read begins a new one. */
  release(): void {
    if (this.heldSince === null) return;
    this.heldSince = null;
    if (this.db.isTransaction) this.db.exec('COMMIT');
  }

  /** Moves to the newest batch now: a new snapshot, the columns brought forward to it. */
  catchUp(): void {
    this.release();
    this.read(() => this.ads.columnarAds());
  }

  /**
   * Copies the write-ahead log into the database file as far as every reader's snapshot allows (a passive
   * checkpoint: it waits for nobody). The pool runs it once every worker has caught up, so it copies all of it, and
   * then has the workers take new snapshots: none of them needs the log any more, and the writer's next batch starts
   * it over from the beginning. Readers that hold their snapshots never all let go of the log at once otherwise, and
   * it grew without end (1.9 GB within one run of 25,000 live sightings at 1M ads; every page a read missed was
   * looked up in it).
   */
  checkpointWal(): void {
    this.checkpointer ??= new DatabaseSync(this.file);
    this.checkpointer.exec('PRAGMA wal_checkpoint(PASSIVE)');
  }

  /** Loads the in-memory columns ahead of the first request (workers call it at start). */
  warmUp(): void {
    this.read(() => this.ads.columnarAds());
  }

  close(): void {
    if (this.checkpointer?.isOpen) this.checkpointer.close();
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
