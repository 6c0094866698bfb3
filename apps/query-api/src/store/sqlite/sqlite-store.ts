import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AdStore } from '../ad-store.port';
import { BASE_TABLES } from './schema';
import { type ReaderMethod, type ReaderOptions, SqliteReader } from './sqlite-reader';
import { WorkerPool } from './worker-pool';

export interface SqliteStoreOptions {
  /** The database file; created (empty) on first use. */
  file: string;
  /** Read-only worker threads; 0 runs queries in-process (tests, tools). */
  workers: number;
  /** The bundled worker entry; defaults to sqlite-worker.js next to the running bundle. */
  workerScript?: string;
  /** Passed to in-process readers (tests force one search path or another); `follow` to the workers too. */
  tuning?: ReaderOptions;
}

export const sqliteFileIn = (dataDir: string) => join(dataDir, 'ads.sqlite');

/** Creates the file and its tables when missing, so readers can open it read-only. */
function ensureSqliteFile(file: string): void {
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
      this.pool = new WorkerPool(script, options.file, options.workers, options.tuning?.follow ?? true);
      this.inline = null;
    } else {
      this.pool = null;
      this.inline = new SqliteReader(options.file, options.tuning ?? {});
      this.inline.warmUp(); // as each worker does at start: the first query does not pay for loading the columns
    }
  }

  /** Runs one reader method in a worker (or in-process); typed by the method, so the port is checked end to end. */
  private call<M extends ReaderMethod>(method: M, ...args: Parameters<SqliteReader[M]>): Promise<ReturnType<SqliteReader[M]>> {
    if (this.pool) return this.pool.call(method, args);
    const reader = this.inline as SqliteReader;
    try {
      const run = reader[method] as (...a: Parameters<SqliteReader[M]>) => ReturnType<SqliteReader[M]>;
      return Promise.resolve(run.apply(reader, args));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** CPU time each query worker has used so far (µs; none in-process), for the benchmarks. */
  workerCpuUsage(): Promise<NodeJS.CpuUsage[]> {
    return this.pool ? this.pool.cpuUsage() : Promise.resolve([]);
  }

  ping: AdStore['ping'] = () => this.call('ping');
  searchAds: AdStore['searchAds'] = (query) => this.call('searchAds', query);
  adChanges: AdStore['adChanges'] = (query) => this.call('adChanges', query);
  countAds: AdStore['countAds'] = (filter, exactUpTo) => this.call('countAds', filter, exactUpTo);
  getAd: AdStore['getAd'] = (id) => this.call('getAd', id);
  breakdown: AdStore['breakdown'] = (filter, field, limit) => this.call('breakdown', filter, field, limit);
  trends: AdStore['trends'] = (query) => this.call('trends', query);
  searchAdvertisers: AdStore['searchAdvertisers'] = (query) => this.call('searchAdvertisers', query);
  getAdvertiser: AdStore['getAdvertiser'] = (id) => this.call('getAdvertiser', id);
  advertiserActivity: AdStore['advertiserActivity'] = (id, range) => this.call('advertiserActivity', id, range);
  searchWebmasters: AdStore['searchWebmasters'] = (query) => this.call('searchWebmasters', query);
  getWebmaster: AdStore['getWebmaster'] = (id) => this.call('getWebmaster', id);
  webmasterAdvertisers: AdStore['webmasterAdvertisers'] = (id, page) => this.call('webmasterAdvertisers', id, page);
  searchCreatives: AdStore['searchCreatives'] = (query) => this.call('searchCreatives', query);
  getCreative: AdStore['getCreative'] = (id) => this.call('getCreative', id);
  creativeRows: AdStore['creativeRows'] = (ids) => this.call('creativeRows', ids);
  heldMedia: AdStore['heldMedia'] = (query) => this.call('heldMedia', query);
  creativePictureHashes: AdStore['creativePictureHashes'] = () => this.call('creativePictureHashes');
  searchDomains: AdStore['searchDomains'] = (query) => this.call('searchDomains', query);
  getDomain: AdStore['getDomain'] = (domain) => this.call('getDomain', domain);
  searchApps: AdStore['searchApps'] = (query) => this.call('searchApps', query);
  getApp: AdStore['getApp'] = (id) => this.call('getApp', id);
  catalog: AdStore['catalog'] = () => this.call('catalog');

  async close(): Promise<void> {
    await this.pool?.close();
    this.inline?.close();
  }
}
