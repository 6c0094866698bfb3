import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type {
  AdDetail,
  Advertiser,
  AdvertiserMatch,
  Ad,
  App,
  AppRow,
  BreakdownField,
  Creative,
  CreativeRow,
  Domain,
  DomainRow,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type {
  ActivityDayData,
  AdFilter,
  AdSearchQuery,
  AdStore,
  BreakdownResult,
  CatalogData,
  CountResult,
  DateRange,
  KeysetPage,
  NameQuery,
  PagedNameQuery,
  SortKey,
  TrendQuery,
  TrendResult,
} from '../ad-store.port';
import { BASE_TABLES } from './schema';
import { SqliteReader } from './sqlite-reader';
import { WorkerPool, type ReaderMethod } from './worker-pool';

export interface SqliteStoreOptions {
  /** The database file; created (empty) on first use. */
  file: string;
  /** Read-only worker threads; 0 runs queries in-process (tests, tools). */
  workers: number;
  /** The bundled worker entry; defaults to sqlite-worker.js next to the running bundle. */
  workerScript?: string;
  /** Passed to in-process readers (tests force the columnar ad search with 0). */
  columnarAboveCost?: number;
}

export const sqliteFileIn = (dataDir: string) => join(dataDir, 'ads.sqlite');

/** Creates the file and its tables when missing, so readers can open it read-only. */
export function ensureSqliteFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL;');
  db.exec(BASE_TABLES);
  db.close();
}

/** The AdStore over SQLite: every call runs on a pool of read-only worker threads. */
export class SqliteStore implements AdStore {
  readonly engine = 'sqlite' as const;
  private readonly pool: WorkerPool | null;
  private readonly inline: SqliteReader | null;

  constructor(options: SqliteStoreOptions) {
    ensureSqliteFile(options.file);
    if (options.workers > 0) {
      const candidates = options.workerScript
        ? [options.workerScript]
        : [join(__dirname, 'sqlite-worker.js'), join(dirname(process.argv[1] ?? '.'), 'sqlite-worker.js')];
      const script = candidates.find((c) => existsSync(c));
      if (!script) throw new Error(`the query worker script is missing (${candidates.join(', ')}): build query-api first`);
      this.pool = new WorkerPool(script, options.file, options.workers);
      this.inline = null;
    } else {
      this.pool = null;
      this.inline = new SqliteReader(options.file, options.columnarAboveCost === undefined ? {} : { columnarAboveCost: options.columnarAboveCost });
      this.inline.warmUp(); // as each worker does at start: the first query does not pay for loading the columns
    }
  }

  private call<T>(method: ReaderMethod, ...args: unknown[]): Promise<T> {
    if (this.pool) return this.pool.call<T>(method, args);
    const reader = this.inline as SqliteReader;
    try {
      return Promise.resolve((reader[method] as (...a: unknown[]) => T).apply(reader, args));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  ping = () => this.call<void>('ping');
  searchAds = (query: AdSearchQuery) => this.call<KeysetPage<Ad>>('searchAds', query);
  countAds = (filter: AdFilter, exactUpTo: number) => this.call<CountResult>('countAds', filter, exactUpTo);
  getAd = (id: string) => this.call<AdDetail | null>('getAd', id);
  breakdown = (filter: AdFilter, field: BreakdownField, limit: number) =>
    this.call<BreakdownResult>('breakdown', filter, field, limit);
  trends = (query: TrendQuery) => this.call<TrendResult>('trends', query);
  searchAdvertisers = (query: NameQuery) => this.call<AdvertiserMatch[]>('searchAdvertisers', query);
  getAdvertiser = (id: string) => this.call<Advertiser | null>('getAdvertiser', id);
  advertiserActivity = (id: string, range: DateRange) => this.call<ActivityDayData[] | null>('advertiserActivity', id, range);
  searchWebmasters = (query: PagedNameQuery) => this.call<KeysetPage<WebmasterRow>>('searchWebmasters', query);
  getWebmaster = (id: string) => this.call<Webmaster | null>('getWebmaster', id);
  webmasterAdvertisers = (id: string, page: { limit: number; after?: SortKey }) =>
    this.call<KeysetPage<AdvertiserMatch> | null>('webmasterAdvertisers', id, page);
  searchCreatives = (query: PagedNameQuery) => this.call<KeysetPage<CreativeRow>>('searchCreatives', query);
  getCreative = (id: string) => this.call<Creative | null>('getCreative', id);
  searchDomains = (query: PagedNameQuery) => this.call<KeysetPage<DomainRow>>('searchDomains', query);
  getDomain = (domain: string) => this.call<Domain | null>('getDomain', domain);
  searchApps = (query: PagedNameQuery) => this.call<KeysetPage<AppRow>>('searchApps', query);
  getApp = (id: string) => this.call<App | null>('getApp', id);
  catalog = () => this.call<CatalogData>('catalog');

  async close(): Promise<void> {
    await this.pool?.close();
    this.inline?.close();
  }
}
