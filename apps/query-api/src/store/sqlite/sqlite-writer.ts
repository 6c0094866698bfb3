import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { AdRecord, AdStoreWriter, ApplyResult, CatalogData, RejectedRow, WriteResult } from '../ad-store.port';
import { reverseHost } from '../text';
import { buildRollups, DEFAULT_ROLLUP_OPTIONS, type RollupOptions } from './rollups';
import { applyPragmasForWriting, BASE_TABLES, SCHEMA_VERSION, SECONDARY_INDEXES } from './schema';

/** The ingest side of the SQLite store. Single writer; readers (worker threads) see a finished store. */
export class SqliteWriter implements AdStoreWriter {
  private readonly db: DatabaseSync;
  private statements: ReturnType<typeof prepare>;

  constructor(
    readonly file: string,
    private readonly rollupOptions: RollupOptions = DEFAULT_ROLLUP_OPTIONS,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new DatabaseSync(file);
    applyPragmasForWriting(this.db);
    this.db.exec(BASE_TABLES);
    const version = this.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    if (version?.value !== SCHEMA_VERSION) this.dropAll();
    this.statements = prepare(this.db);
  }

  async size(): Promise<number> {
    return Number((this.db.prepare('SELECT count(*) AS n FROM ads').get() as { n: number }).n);
  }

  /** Drops and recreates every table: the next load runs without secondary indexes (finish() adds them). */
  async clear(): Promise<void> {
    this.dropAll();
    this.statements = prepare(this.db);
  }

  private dropAll(): void {
    this.db.exec(`
      DROP TABLE IF EXISTS ads; DROP TABLE IF EXISTS ad_docs; DROP TABLE IF EXISTS ad_countries;
      DROP TABLE IF EXISTS ad_categories; DROP TABLE IF EXISTS ad_languages; DROP TABLE IF EXISTS ads_fts;
      DROP TABLE IF EXISTS entities; DROP TABLE IF EXISTS name_index; DROP TABLE IF EXISTS webmaster_advertisers;
      DROP TABLE IF EXISTS trend_columns; DELETE FROM meta;`);
    this.db.exec(BASE_TABLES);
    this.db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(SCHEMA_VERSION);
  }

  async write(batch: readonly AdRecord[]): Promise<WriteResult> {
    const rejected: RejectedRow[] = [];
    let written = 0;
    const s = this.statements;
    this.db.exec('BEGIN');
    try {
      for (const ad of batch) {
        try {
          const existing = s.findRid.get(ad.id) as { rid: number } | undefined;
          if (existing) this.remove(existing.rid);
          const { lastInsertRowid } = s.insertAd.run(
            ad.id,
            ad.platform_name,
            ad.advertiser_id,
            ad.webmaster_id,
            ad.app_id,
            ad.creative_id,
            ad.status_today,
            ad.first_seen_date,
            ad.last_seen_date,
            ad.days_active,
            ad.activity_days_amount,
            ad.popularity,
            ad.impressions,
            reverseHost(ad.landing_domain),
            ad.registrable_domain,
            ad.creative_format,
          );
          s.insertDoc.run(
            lastInsertRowid,
            ad.landing_domain,
            ad.countries.join(','),
            ad.categories.join(','),
            ad.advertiser_name,
            ad.advertiser_account_id,
            ad.webmaster_name,
            ad.app ? JSON.stringify(ad.app) : null,
            ad.creative_title,
            JSON.stringify(toStoredDoc(ad)),
          );
          const rid = Number(lastInsertRowid);
          for (const v of new Set(ad.countries)) s.insertCountry.run(rid, v);
          for (const v of new Set(ad.categories)) s.insertCategory.run(rid, v);
          for (const v of new Set(ad.languages)) s.insertLanguage.run(rid, v);
          s.insertFts.run(rid, ad.title, ad.body, ad.landing_url);
          written++;
        } catch (error) {
          rejected.push({ line: 0, id: ad.id, reason: `sqlite: ${(error as Error).message}` });
        }
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw new Error('writing a batch to SQLite failed', { cause: error });
    }
    return { written, rejected };
  }

  /** The first live path: the batch written, then every rollup rebuilt (to be replaced by an incremental one). */
  async apply(batch: readonly AdRecord[]): Promise<ApplyResult> {
    const changed: AdRecord[] = [];
    let added = 0;
    let unchanged = 0;
    const stored = this.db.prepare('SELECT d.doc FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?');
    for (const ad of batch) {
      const row = stored.get(ad.id) as { doc: string } | undefined;
      if (row?.doc === JSON.stringify(toStoredDoc(ad))) unchanged++;
      else {
        if (!row) added++;
        changed.push(ad);
      }
    }
    // Written and finished in two steps: a crash between them leaves the flag set, and the next apply finishes.
    const unfinished = this.db.prepare("SELECT 1 FROM meta WHERE key = 'unfinished'").get() !== undefined;
    if (changed.length) this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('unfinished', '1')").run();
    const { written, rejected } = await this.write(changed);
    if (changed.length || unfinished) await this.finish();
    return { added, replaced: written - added, unchanged, rejected };
  }

  /** Seconds per step of the last finish(), for the ingest summary and the benchmark. */
  readonly timings: Record<string, number> = {};

  async finish(): Promise<void> {
    const step = (name: string, run: () => void) => {
      const started = performance.now();
      run();
      this.timings[name] = (performance.now() - started) / 1000;
    };
    step('indexes', () => this.db.exec(SECONDARY_INDEXES));
    step('rollups', () => buildRollups(this.db, this.timings, this.rollupOptions));
    step('catalog', () => {
      const { catalog, valueCounts } = this.catalogData();
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('catalog', ?)").run(JSON.stringify(catalog));
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('value_counts', ?)").run(JSON.stringify(valueCounts));
    });
    step('analyze', () => this.db.exec('PRAGMA analysis_limit = 1000; ANALYZE;'));
    const generation = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)").run(generation);
    this.db.prepare("DELETE FROM meta WHERE key = 'unfinished'").run();
    step('checkpoint', () => this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)'));
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }

  /** The catalog, and the ads per country/category the reader's planner uses. */
  private catalogData() {
    const counted = (table: string) =>
      this.db.prepare(`SELECT value, count(*) AS n FROM ${table} GROUP BY value ORDER BY n DESC, value ASC`).all() as {
        value: string;
        n: number;
      }[];
    const window = this.db.prepare('SELECT min(first_seen) AS first, max(last_seen) AS last, count(*) AS n FROM ads').get() as {
      first: string | null;
      last: string | null;
      n: number;
    };
    const countries = counted('ad_countries');
    const categories = counted('ad_categories');
    const catalog: CatalogData = {
      countries: countries.map((r) => r.value),
      categories: categories.map((r) => r.value),
      languages: counted('ad_languages').map((r) => r.value),
      firstSeenDate: window.first,
      lastSeenDate: window.last,
    };
    const valueCounts = {
      n: window.n,
      countries: Object.fromEntries(countries.map((r) => [r.value, r.n])),
      categories: Object.fromEntries(categories.map((r) => [r.value, r.n])),
    };
    return { catalog, valueCounts };
  }

  private remove(rid: number) {
    const s = this.statements;
    s.deleteAd.run(rid);
    s.deleteDoc.run(rid);
    s.deleteCountries.run(rid);
    s.deleteCategories.run(rid);
    s.deleteLanguages.run(rid);
    s.deleteFts.run(rid);
  }
}

/** What getAd and the pages read back: the contract Ad plus its media. */
function toStoredDoc(ad: AdRecord) {
  return {
    id: ad.id,
    title: ad.title,
    body: ad.body,
    landing_domain: ad.landing_domain,
    landing_url: ad.landing_url,
    platform_name: ad.platform_name,
    advertiser_id: ad.advertiser_id,
    webmaster_id: ad.webmaster_id,
    status_today: ad.status_today,
    days_active: ad.days_active,
    first_seen_date: ad.first_seen_date,
    last_seen_date: ad.last_seen_date,
    countries: ad.countries,
    languages: ad.languages,
    categories: ad.categories,
    creative_format: ad.creative_format,
    media_count: ad.media_count,
    creative_id: ad.creative_id,
    app_id: ad.app_id,
    impressions: ad.impressions,
    popularity: ad.popularity,
    activity_days_amount: ad.activity_days_amount,
    media: ad.media,
  };
}

function prepare(db: DatabaseSync) {
  const st = (sql: string): StatementSync => db.prepare(sql);
  return {
    findRid: st('SELECT rid FROM ads WHERE id = ?'),
    insertAd: st(`INSERT INTO ads (id, platform, advertiser_id, webmaster_id, app_id, creative_id, status, first_seen,
      last_seen, days_active, activity_days, popularity, impressions, host_rev, registrable, creative_format)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertDoc: st(`INSERT INTO ad_docs (rid, host, countries, categories, advertiser_name, advertiser_account,
      webmaster_name, app_doc, creative_title, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertCountry: st('INSERT INTO ad_countries (rid, value) VALUES (?, ?)'),
    insertCategory: st('INSERT INTO ad_categories (rid, value) VALUES (?, ?)'),
    insertLanguage: st('INSERT INTO ad_languages (rid, value) VALUES (?, ?)'),
    insertFts: st('INSERT INTO ads_fts (rowid, title, body, url) VALUES (?, ?, ?, ?)'),
    deleteAd: st('DELETE FROM ads WHERE rid = ?'),
    deleteDoc: st('DELETE FROM ad_docs WHERE rid = ?'),
    deleteCountries: st('DELETE FROM ad_countries WHERE rid = ?'),
    deleteCategories: st('DELETE FROM ad_categories WHERE rid = ?'),
    deleteLanguages: st('DELETE FROM ad_languages WHERE rid = ?'),
    deleteFts: st('DELETE FROM ads_fts WHERE rowid = ?'),
  };
}
