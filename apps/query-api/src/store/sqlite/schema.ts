import type { DatabaseSync } from 'node:sqlite';

/**
 * The SQLite layout. `ads` holds one row per ad (filter and sort columns), `ad_docs` its payload (the record as JSON);
 * array fields live in join tables; `ads_fts` indexes the words of title, body and landing URL;
 * `host_rev` (reversed host) turns "domain and all its subdomains" into one index range.
 * `entity_facets` holds the counters entity records are rendered from (entity-facets.ts), `entities`/`name_index` the
 * rendered records (`entity_moving` what re-sightings move in them), `trend_columns` the ad columns and word bitsets as of `meta.columns_seq`; `live_changes` lists the
 * rows each live batch removed and added since then (live-columns.ts brings the columns forward with it).
 */
/** Bumped whenever the layout changes: a store written by another version is emptied and reloaded. */
export const SCHEMA_VERSION = '5';

export const BASE_TABLES = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- AUTOINCREMENT: a row id is never reused, so a live batch's changes name each row version once (live-columns.ts).
CREATE TABLE IF NOT EXISTS ads (
  rid INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  platform TEXT NOT NULL,
  advertiser_id TEXT NOT NULL,
  webmaster_id TEXT,
  app_id TEXT,
  creative_id TEXT NOT NULL,
  status TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  days_active INTEGER NOT NULL,
  activity_days INTEGER NOT NULL,
  popularity REAL NOT NULL,
  impressions INTEGER NOT NULL,
  host_rev TEXT NOT NULL,
  registrable TEXT NOT NULL,
  creative_format TEXT NOT NULL,
  destination TEXT NOT NULL
);
-- The payload, apart from the filter/sort columns, so an ads row stays small and scans stay in cache.
CREATE TABLE IF NOT EXISTS ad_docs (
  rid INTEGER PRIMARY KEY,
  host TEXT NOT NULL,
  countries TEXT NOT NULL,
  categories TEXT NOT NULL,
  languages TEXT NOT NULL,
  advertiser_name TEXT NOT NULL,
  advertiser_account TEXT NOT NULL,
  webmaster_name TEXT,
  app_doc TEXT,
  creative_title TEXT NOT NULL,
  -- The record as JSON. Its moving values (status, last seen, days active, activity, popularity, impressions) are
  -- those of its last write: the ads row holds them current, and every reader takes them from it (moving-values.ts).
  doc TEXT NOT NULL,
  -- A digest of what the doc keeps (all but the moving values; an earlier version's: of the whole record): a sighting
  -- with the same digest and the row's moving values changes nothing; with other moving values, only the row.
  content TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ad_countries (rid INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (rid, value)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ad_categories (rid INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (rid, value)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ad_languages (rid INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (rid, value)) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS ads_fts USING fts5(
  title, body, url, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0'
);
CREATE TABLE IF NOT EXISTS entities (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  ads_total INTEGER NOT NULL,
  row_doc TEXT NOT NULL,
  full_doc TEXT NOT NULL,
  PRIMARY KEY (kind, id)
) WITHOUT ROWID;
-- What a re-sighting moves in a record (active ads, first and last seen dates), current: the docs above keep their copy
-- from when they were last rendered, and every reader takes these from here (entity-moving.ts).
CREATE TABLE IF NOT EXISTS entity_moving (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  active_ads INTEGER,
  first_seen TEXT,
  last_seen TEXT,
  PRIMARY KEY (kind, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS name_index (kind TEXT NOT NULL, suffix TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (kind, suffix, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entity_facets (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  facet TEXT NOT NULL,
  key TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (kind, id, facet, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_changes (seq INTEGER NOT NULL, rid INTEGER NOT NULL, change INTEGER NOT NULL, PRIMARY KEY (seq, rid, change)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS trend_columns (name TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
`;

/** What `live_changes.change` says of a row: taken out, put in, or changed in place (same rid and position). */
export const REMOVED = 0;
export const ADDED = 1;
export const UPDATED = 2;

/**
 * An advertiser's ads by first seen day: its searches' driver, its earliest day a seek. Not its last seen days (a
 * re-sighting would move an entry: decisions/0019): its activity is counted on the columns.
 */
const ADVERTISER_INDEX = 'CREATE INDEX IF NOT EXISTS ads_by_advertiser ON ads (advertiser_id, first_seen);';

/** Secondary indexes: created after a bulk load (faster than maintaining them row by row). */
export const SECONDARY_INDEXES = `
CREATE INDEX IF NOT EXISTS ads_by_date ON ads (first_seen, id);
${ADVERTISER_INDEX}
CREATE INDEX IF NOT EXISTS ads_by_webmaster ON ads (webmaster_id);
CREATE INDEX IF NOT EXISTS ads_by_app ON ads (app_id);
CREATE INDEX IF NOT EXISTS ads_by_creative ON ads (creative_id, id);
CREATE INDEX IF NOT EXISTS ads_by_host ON ads (host_rev);
CREATE INDEX IF NOT EXISTS ad_countries_by_value ON ad_countries (value, rid);
CREATE INDEX IF NOT EXISTS ad_categories_by_value ON ad_categories (value, rid);
`;

/**
 * Brings the indexes of a store written before decisions/0019 to this layout when a writer opens it: the sorts on
 * values a sighting moves (days active, activity days, popularity, impressions) walk orders the columns keep
 * (sort-orders.ts), so their indexes go, and `ads_by_advertiser` is built again without the last seen days. An index
 * entry per moved value was most of the index pages a live batch wrote.
 */
export function migrateIndexes(db: DatabaseSync): void {
  db.exec(`DROP INDEX IF EXISTS ads_by_days_active; DROP INDEX IF EXISTS ads_by_activity;
    DROP INDEX IF EXISTS ads_by_popularity; DROP INDEX IF EXISTS ads_by_impressions;`);
  const advertiser = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'ads_by_advertiser'").get() as { sql: string } | undefined;
  if (advertiser?.sql.includes('last_seen')) db.exec(`DROP INDEX ads_by_advertiser; ${ADVERTISER_INDEX}`);
}

/** Indexes over the rollups: created after buildRollups() filled them. */
export const ROLLUP_INDEXES = `
CREATE INDEX IF NOT EXISTS entities_by_volume ON entities (kind, ads_total DESC, id);
CREATE INDEX IF NOT EXISTS name_index_by_entity ON name_index (kind, id, suffix);
`;

/**
 * busy_timeout: a bulk load run beside the serving process's live writer waits for the file instead of failing.
 * journal_size_limit: when the write-ahead log starts over (after a catch-up round, WorkerPool), a log grown past
 * 64 MB by a large batch or a checkpoint of the columns is cut back to that.
 * wal_autocheckpoint = 0: the writer copies the log into the file itself (copyLogIntoFile), after it has told the
 * readers about the batch. SQLite's own checkpoint runs inside COMMIT, once the batch is visible: a reader that began
 * a read then saw the batch and waited for the writer's columns of it (shared-columns.ts) while the pages were copied.
 */
export function applyPragmasForWriting(db: DatabaseSync): void {
  db.exec(`PRAGMA busy_timeout = 30000; PRAGMA journal_size_limit = 67108864; PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -262144; PRAGMA wal_autocheckpoint = 0;`);
}

/**
 * Copies what the write-ahead log holds into the file, as far as no reader still needs it (PASSIVE: never waits):
 * after each commit of the writer's, in place of SQLite's automatic checkpoint (applyPragmasForWriting).
 */
export function copyLogIntoFile(db: DatabaseSync): void {
  db.exec('PRAGMA wal_checkpoint(PASSIVE)');
}

export function applyPragmasForReading(db: DatabaseSync): void {
  db.exec(`PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824;`);
}
