import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { keepingStoredMedia as keepingStored, type RecordMedia } from '../record-media';
import type { AdRecord, AdStoreWriter, ApplyResult, RejectedRow, WriteResult } from '../ad-store.port';
import { reverseHost } from '../text';
import { eachFacet, facetSourceOfRecord, FacetTotals } from './entity-facets';
import { encodeAdColumns, WORD_BITS_PREFIX } from './ad-columns';
import { EntityRecords, fillEntityMoving } from './entity-records';
import { type EntityRows, type KnownRow, LiveColumns } from './live-columns';
import { ChangeLog, type StoredVisible } from './change-log';
import { isKeptDigest, keptDigest, type MovingRow, MovingUpdates, sameMoving, storedKeptDigest, type StoredKept, withMoving } from './moving-values';
import { ColumnsPublisher, type Publication } from './shared-columns';
import { sharedAlloc } from './typed-alloc';
import { AD_ROW_COLUMNS, type AdRow, buildRollups, cpuSeconds, DEFAULT_ROLLUP_OPTIONS, facetSourceOf, type RollupOptions } from './rollups';
import { ADDED, applyPragmasForWriting, BASE_TABLES, copyLogIntoFile, migrateIndexes, REMOVED, SCHEMA_VERSION, SECONDARY_INDEXES, UPDATED } from './schema';

/**
 * The ingest side of the SQLite store, its single writer. A bulk load writes batches, then finish() rebuilds every
 * rollup from the whole store; a live batch (apply) changes the rows, counters and records it touches and logs the
 * rows it removed and added in `live_changes`; it brings the columns forward over the batch and publishes them to
 * this process's readers (shared-columns.ts). Readers (worker threads) see a finished store, then every batch whole.
 */
export class SqliteWriter implements AdStoreWriter {
  private readonly db: DatabaseSync;
  private statements: ReturnType<typeof prepare>;
  private entities: EntityRecords;
  /** A row's moving values, only those that changed (moving-values.ts). */
  private movingUpdates: MovingUpdates;
  /** The change feed's log, written with each live batch (change-log.ts). */
  private readonly changeLog: ChangeLog;

  /**
   * The columns brought forward over each live batch, in shared memory (created on the first batch or checkpoint), and
   * their publisher to this process's readers (shared-columns.ts).
   */
  private live: LiveColumns | null = null;
  private publisher: ColumnsPublisher | null = null;
  /** Live changes logged since the columns were last stored. */
  private changesSinceCheckpoint: number;

  /**
   * `checkpointEvery`: after this many logged live changes (rows removed or added) the columns are stored again and
   * the log before them dropped, so a reader that starts (or restarts after a crash) replays at most about that many.
   */
  constructor(
    readonly file: string,
    private readonly rollupOptions: RollupOptions = DEFAULT_ROLLUP_OPTIONS,
    private readonly checkpointEvery = 200_000,
    private readonly load: WriterLoad = {},
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new DatabaseSync(file);
    applyPragmasForWriting(this.db);
    if (load.offline) applyPragmasForOfflineLoad(this.db);
    this.db.exec(BASE_TABLES);
    const version = this.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    if (version?.value !== SCHEMA_VERSION) this.dropAll();
    migrateIndexes(this.db);
    fillEntityMoving(this.db);
    this.statements = prepare(this.db);
    this.entities = new EntityRecords(this.db);
    this.movingUpdates = new MovingUpdates(this.db);
    this.changeLog = new ChangeLog(this.db);
    this.changesSinceCheckpoint = (this.db.prepare('SELECT count(*) AS n FROM live_changes').get() as { n: number }).n;
  }

  /** Live batches whose columns took the tail path, not the merge (live-columns.ts): for the tests and the benchmark. */
  get tailForwards(): number {
    return this.live?.tailForwards ?? 0;
  }

  /** Versions of the moving columns built in buffers used again, and as copies (moving-buffers.ts): tests and the benchmark. */
  get movingBuffers(): { reused: number; copied: number } {
    return { reused: this.live?.movingBuffers?.reused ?? 0, copied: this.live?.movingBuffers?.copied ?? 0 };
  }

  async size(): Promise<number> {
    return Number((this.db.prepare('SELECT count(*) AS n FROM ads').get() as { n: number }).n);
  }

  /** Drops and recreates every table: the next load runs without secondary indexes (finish() adds them). */
  async clear(): Promise<void> {
    this.dropAll();
    this.statements = prepare(this.db);
    this.entities = new EntityRecords(this.db);
    this.movingUpdates = new MovingUpdates(this.db);
  }

  /**
   * In one transaction: a reader opening the store meanwhile (a query worker starting beside the live writer) sees
   * every table before or after, never a store without them (its statements are prepared when it opens).
   */
  private dropAll(): void {
    this.db.exec('BEGIN');
    try {
      this.db.exec(`
        DROP TABLE IF EXISTS ads; DROP TABLE IF EXISTS ad_docs; DROP TABLE IF EXISTS ad_countries;
        DROP TABLE IF EXISTS ad_categories; DROP TABLE IF EXISTS ad_languages; DROP TABLE IF EXISTS ads_fts;
        DROP TABLE IF EXISTS entities; DROP TABLE IF EXISTS entity_moving; DROP TABLE IF EXISTS name_index; DROP TABLE IF EXISTS webmaster_advertisers;
        DROP TABLE IF EXISTS entity_facets; DROP TABLE IF EXISTS live_changes; DROP TABLE IF EXISTS trend_columns;
        DELETE FROM meta;`);
      this.db.exec(BASE_TABLES);
      this.db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(SCHEMA_VERSION);
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
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
          this.insert(ad, keptDigest(ad));
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
    copyLogIntoFile(this.db);
    return { written, rejected };
  }

  /**
   * One live batch, in one transaction: each changed ad's old row (if any) is taken out of the counters and removed,
   * the new one inserted and counted; the touched entity records and the catalog are rendered again; the removed and
   * added row ids are logged under the batch's sequence number. Work follows the batch and the entities it touches.
   * The first batch into a store that was never finished is finished in full instead.
   */
  async apply(batch: readonly AdRecord[]): Promise<ApplyResult> {
    if (this.meta('columns_seq') === null) {
      const { written, rejected } = await this.write(batch);
      await this.finish();
      return { added: written, replaced: 0, unchanged: 0, rejected };
    }
    const s = this.statements;
    const seq = Number(this.meta('seq') ?? '0') + 1;
    const changes = new FacetTotals();
    const result: ApplyResult = { added: 0, replaced: 0, unchanged: 0, rejected: [] };
    // The rows this batch leaves, as stored: the columns' forward pass takes them from here (prepareColumns).
    const known = new Map<number, KnownRow>();
    this.db.exec('BEGIN');
    try {
      // Each id's stored row as the batch finds it, read once: the change log and the first sighting of the id share
      // it and its parsed doc (a later sighting of the same id in the batch reads the row the earlier one wrote). The
      // doc is read and parsed only when something needs it (media to resolve, text to compare).
      const before = new Map<string, Stored | null>();
      for (const { id } of batch) {
        if (before.has(id)) continue;
        const row = s.findRow.get(id) as StoredRow | undefined;
        before.set(id, row ? this.stored(row) : null);
      }
      // The first sighting of each id, its media resolved against the stored ad, and its kept digest.
      const firsts = new Map<string, Resolved>();
      for (const sighting of batch) {
        if (firsts.has(sighting.id)) continue;
        firsts.set(sighting.id, resolved(sighting, before.get(sighting.id) ?? null));
      }
      this.changeLog.record(seq, batch, (id) => {
        const stored = before.get(id);
        if (!stored) return null;
        // What the doc keeps is the sighting's (same kept digest): the doc need not be read for its visible fields.
        const first = firsts.get(id);
        return first?.kept ? { ...first.ad, status_today: stored.row.status, last_seen_date: stored.row.last_seen } : stored.doc();
      });
      const seen = new Set<string>();
      for (const sighting of batch) {
        const first = !seen.has(sighting.id);
        seen.add(sighting.id);
        const stored = first ? before.get(sighting.id) : this.storedOf(sighting.id);
        const old = stored?.row;
        const { ad, content, kept } = first ? (firsts.get(sighting.id) as Resolved) : resolved(sighting, stored ?? null);
        if (old && kept && sameMoving(old, ad)) {
          result.unchanged++;
          continue;
        }
        if (old && stored && this.seenAgain(old, stored.doc, kept, ad, content)) {
          eachFacet(facetSourceOf(old), -1, changes);
          s.logChange.run(seq, old.rid, UPDATED);
          known.set(old.rid, knownRow(ad, old.rid));
          result.replaced++;
        } else if (old) {
          eachFacet(facetSourceOf(old), -1, changes);
          this.remove(old.rid);
          known.delete(old.rid);
          s.logChange.run(seq, old.rid, REMOVED);
          const rid = this.insert(ad, content);
          s.logChange.run(seq, rid, ADDED);
          known.set(rid, knownRow(ad, rid));
          result.replaced++;
        } else {
          const rid = this.insert(ad, content);
          s.logChange.run(seq, rid, ADDED);
          known.set(rid, knownRow(ad, rid));
          result.added++;
        }
        eachFacet(facetSourceOfRecord(ad), 1, changes);
      }
      const records = this.entities.applyChanges(changes);
      this.setMeta('seq', String(seq));
      this.setMeta('generation', newGeneration());
      const publication = this.prepareColumns(known, records);
      this.db.exec('COMMIT');
      this.publisher?.post(publication);
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      // The columns may have been brought forward over the batch rolled back: load them again on the next one.
      this.live = null;
      this.publisher?.restart();
      throw new Error('applying a live batch to SQLite failed', { cause: error });
    }
    // The readers have the batch's columns: copying the log now holds none of them up.
    copyLogIntoFile(this.db);
    this.changesSinceCheckpoint += result.added + 2 * result.replaced;
    if (this.changesSinceCheckpoint >= this.checkpointEvery) this.checkpoint();
    return result;
  }

  /** A stored ad as apply finds it: its row, and its doc (read, parsed and given the row's moving values when asked). */
  private stored(row: StoredRow): Stored {
    let parsed: StoredDoc | undefined;
    const doc = () => (parsed ??= withMoving(JSON.parse((this.statements.findDoc.get(row.rid) as { doc: string }).doc) as StoredDoc, row));
    return { row, doc };
  }

  /** An id's stored ad as the batch left it so far (a later sighting of an id reads what the earlier one wrote). */
  private storedOf(id: string): Stored | null {
    const row = this.statements.findRow.get(id) as StoredRow | undefined;
    return row ? this.stored(row) : null;
  }

  /**
   * A re-sighting of the same ad in place. When what the doc keeps is the same (`kept`: only the moving values changed:
   * status, last seen, days active, activity, popularity, impressions), the `ads` row alone is written: the doc, its
   * lists and the text index are left as they are (readers take the moving values from the row, moving-values.ts).
   * Otherwise, when only what a sighting may change changed besides them (countries, categories, languages, media,
   * names), the row keeps its id and its place in the columns, and the changed columns, lists and doc are rewritten
   * (not the text index). Returns false, changing nothing, when the ad changed more (its text, first_seen_date,
   * platform, advertiser, webmaster, app, creative or landing host): it is then removed and inserted again.
   */
  private seenAgain(old: StoredRow, storedDoc: () => StoredDoc, kept: boolean, ad: AdRecord, content: string): boolean {
    const s = this.statements;
    if (kept) {
      this.movingUpdates.run(old.rid, old, ad);
      return true;
    }
    const text = storedDoc();
    const same =
      text.title === ad.title &&
      text.body === ad.body &&
      text.landing_url === ad.landing_url &&
      old.first_seen === ad.first_seen_date &&
      old.platform === ad.platform_name &&
      old.advertiser_id === ad.advertiser_id &&
      old.webmaster_id === ad.webmaster_id &&
      old.app_id === ad.app_id &&
      old.creative_id === ad.creative_id &&
      old.creative_format === ad.creative_format &&
      old.host === ad.landing_domain;
    if (!same) return false;
    this.movingUpdates.run(old.rid, old, ad);
    s.updateDoc.run(...this.docValues(ad, content), old.rid);
    const lists: [string, string[], StatementSync, StatementSync][] = [
      [old.countries, ad.countries, s.deleteCountries, s.insertCountry],
      [old.categories, ad.categories, s.deleteCategories, s.insertCategory],
      [old.languages, ad.languages, s.deleteLanguages, s.insertLanguage],
    ];
    for (const [was, now, remove, insert] of lists) {
      if (was === now.join(',')) continue;
      remove.run(old.rid);
      for (const v of new Set(now)) insert.run(old.rid, v);
    }
    return true;
  }

  /** ad_docs' values after its rid, in column order (insertDoc and updateDoc). */
  private docValues(ad: AdRecord, content: string) {
    return [
      ad.countries.join(','),
      ad.categories.join(','),
      ad.languages.join(','),
      ad.advertiser_name,
      ad.advertiser_account_id,
      ad.webmaster_name,
      ad.app ? JSON.stringify(ad.app) : null,
      ad.creative_title,
      JSON.stringify(toStoredDoc(ad)),
      content,
    ] as const;
  }

  /**
   * Stores the columns and word bitsets as of the last live batch, and drops the change log up to it. Readers keep the
   * columns they brought forward (same base); one that starts later loads these and replays only what follows.
   */
  checkpoint(): void {
    const current = this.liveColumns().current();
    const seq = this.meta('seq') ?? '0';
    if (!current) return;
    const insert = this.db.prepare('INSERT INTO trend_columns (name, data) VALUES (?, ?)');
    this.db.exec('BEGIN');
    try {
      this.db.exec('DELETE FROM trend_columns');
      for (const [name, data] of encodeAdColumns(current.columnar.cols)) insert.run(name, data);
      for (const [word, bits] of current.wordBits) insert.run(WORD_BITS_PREFIX + word, new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength));
      this.db.prepare('DELETE FROM live_changes WHERE seq <= ?').run(Number(seq));
      this.setMeta('columns_seq', seq);
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw new Error('storing the columns failed', { cause: error });
    }
    copyLogIntoFile(this.db);
    this.changesSinceCheckpoint = 0;
  }

  /** CPU seconds per step of the last finish() (this thread's, as the load runs in it), for the ingest summary and the benchmark. */
  readonly timings: Record<string, number> = {};

  async finish(): Promise<void> {
    const step = (name: string, run: () => void) => {
      this.load.progress?.(`finishing: ${name}…`);
      const started = cpuSeconds();
      run();
      this.timings[name] = cpuSeconds() - started;
    };
    step('indexes', () => this.db.exec(SECONDARY_INDEXES));
    step('rollups', () => buildRollups(this.db, this.timings, this.rollupOptions));
    step('analyze', () => this.db.exec('PRAGMA analysis_limit = 1000; ANALYZE;'));
    // The columns now hold every row up to the current sequence number; readers reload them (a new base).
    this.setMeta('columns_seq', this.meta('seq') ?? '0');
    this.setMeta('columns_base', newGeneration());
    this.changesSinceCheckpoint = 0;
    this.setMeta('generation', newGeneration());
    step('checkpoint', () => this.db.exec(this.load.offline ? 'PRAGMA journal_mode = WAL' : 'PRAGMA wal_checkpoint(TRUNCATE)'));
  }

  /**
   * The columns brought forward over the batch being applied, with every index, ready to publish: built inside the
   * batch's transaction (this connection sees the batch), so the post right after the commit is all readers wait for.
   */
  private prepareColumns(known: ReadonlyMap<number, KnownRow>, records: EntityRows): Publication | null {
    const live = this.liveColumns();
    const state = live.current(known, records);
    if (!state) return null;
    return (this.publisher ??= new ColumnsPublisher(this.file)).prepare(state, live.takeRelabels());
  }

  /** The columns in shared memory; the buffers of versions no reader is on any more are written again (MovingBuffers). */
  private liveColumns(): LiveColumns {
    return (this.live ??= new LiveColumns(this.db, sharedAlloc, () => this.publisher?.oldestRead() ?? Infinity));
  }

  /** Stores the columns first when live batches changed them, so the next start replays nothing. */
  async close(): Promise<void> {
    if (!this.db.isOpen) return;
    this.publisher?.close();
    if (this.changesSinceCheckpoint > 0) this.checkpoint();
    this.db.close();
  }

  private meta(key: string): string | null {
    return (this.statements.getMeta.get(key) as { value: string } | undefined)?.value ?? null;
  }

  private setMeta(key: string, value: string): void {
    this.statements.setMeta.run(key, value);
  }

  /** Inserts one ad's rows; returns its row id. */
  private insert(ad: AdRecord, content: string): number {
    const s = this.statements;
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
      ad.destination_type,
    );
    const rid = Number(lastInsertRowid);
    s.insertDoc.run(rid, ad.landing_domain, ...this.docValues(ad, content));
    for (const v of new Set(ad.countries)) s.insertCountry.run(rid, v);
    for (const v of new Set(ad.categories)) s.insertCategory.run(rid, v);
    for (const v of new Set(ad.languages)) s.insertLanguage.run(rid, v);
    s.insertFts.run(rid, ad.title, ad.body, ad.landing_url);
    return rid;
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

/** How the writer's file is written. */
export interface WriterLoad {
  /**
   * The file is an offline load's new file (store-file.ts), read by nobody until it is switched in whole: it is written
   * without a write-ahead log, and finish() puts it in WAL mode, as the serving side expects.
   */
  offline?: boolean;
  /** Told as each step of finish() starts (a load's longest quiet stretch): the offline commands show it. */
  progress?: (line: string) => void;
}

/**
 * An offline load's file needs no journal on disk: a load stopped midway is thrown away whole (store-file.ts), so the
 * write-ahead log (every page written twice, then checkpointed) buys nothing there. The rollback journal stays, in
 * memory, so a failed batch still rolls back.
 * Its pages are read through a memory map (up to SQLite's 2 GB cap): finish() reads the whole file several times
 * (the rollup scan, the indexes, the entity tables), and past the page cache each page read was a read() and a copy
 * (at 1M ads the load took 69 CPU seconds with the map, 74 without: one run each). Writes still go through the
 * page cache, as without the map. Only the load has this file open until it is switched in.
 */
function applyPragmasForOfflineLoad(db: DatabaseSync): void {
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA mmap_size = 2147418112');
}

const newGeneration = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** What apply reads of a stored doc (toStoredDoc): the text and media it compares, the visible fields the change log digests. */
type StoredDoc = StoredVisible &
  StoredKept['doc'] & { title: string; body: string; landing_url: string; days_active: number; activity_days_amount: number; popularity: number; impressions: number; media: RecordMedia[] };

/** An ad's stored row as apply reads it (findRow): the row, its moving values and its kept digest, not its doc. */
type StoredRow = AdRow & MovingRow & { content: string };

/** A stored ad as apply finds it (SqliteWriter.stored). */
interface Stored {
  row: StoredRow;
  /** The doc, parsed once and only when asked, with the row's moving values. */
  doc: () => StoredDoc;
}

/**
 * A sighting as apply writes it: with the stored files of the media the stored ad holds, its kept digest, and whether
 * that is the stored ad's (then only moving values can differ: the doc need not be read or written).
 */
interface Resolved {
  ad: AdRecord;
  content: string;
  kept: boolean;
}

function resolved(sighting: AdRecord, stored: Stored | null): Resolved {
  const ad = stored ? keepingStoredMedia(sighting, stored.doc) : sighting;
  const content = keptDigest(ad);
  if (!stored) return { ad, content, kept: false };
  // A store an earlier version wrote digests whole records: its kept digest is taken from the doc and row.
  const storedContent = isKeptDigest(stored.row.content) ? stored.row.content : storedKeptDigest({ doc: stored.doc(), row: stored.row });
  return { ad, content, kept: storedContent === content };
}

/** The sighting with the stored files the store's copy of it holds (record-media.ts); the doc parsed only if needed. */
function keepingStoredMedia(ad: AdRecord, storedDoc: () => StoredDoc): AdRecord {
  if (!ad.media.some((m) => !m.stored)) return ad;
  const media = keepingStored(ad.media, storedDoc().media ?? []);
  return media === ad.media ? ad : { ...ad, media };
}

/** The row an ad record is stored as (the values AD_ROW_COLUMNS reads back: insert, seenAgain and docValues), with its text. */
function knownRow(ad: AdRecord, rid: number): KnownRow {
  return {
    row: {
      rid,
      id: ad.id,
      activity_days: ad.activity_days_amount,
      popularity: ad.popularity,
      impressions: ad.impressions,
      platform: ad.platform_name,
      advertiser_id: ad.advertiser_id,
      webmaster_id: ad.webmaster_id,
      app_id: ad.app_id,
      creative_id: ad.creative_id,
      status: ad.status_today,
      first_seen: ad.first_seen_date,
      last_seen: ad.last_seen_date,
      registrable: ad.registrable_domain,
      host_rev: reverseHost(ad.landing_domain),
      host: ad.landing_domain,
      creative_format: ad.creative_format,
      destination: ad.destination_type,
      countries: ad.countries.join(','),
      categories: ad.categories.join(','),
      languages: ad.languages.join(','),
      advertiser_name: ad.advertiser_name,
      advertiser_account: ad.advertiser_account_id,
      webmaster_name: ad.webmaster_name,
      app_doc: ad.app ? JSON.stringify(ad.app) : null,
      creative_title: ad.creative_title,
    },
    text: { title: ad.title, body: ad.body, landing_url: ad.landing_url },
  };
}

/** What getAd and the pages read back: the contract Ad plus its media. */
function toStoredDoc(ad: AdRecord) {
  return {
    id: ad.id,
    title: ad.title,
    body: ad.body,
    landing_domain: ad.landing_domain,
    landing_url: ad.landing_url,
    destination_type: ad.destination_type,
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
      last_seen, days_active, activity_days, popularity, impressions, host_rev, registrable, creative_format, destination)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertDoc: st(`INSERT INTO ad_docs (rid, host, countries, categories, languages, advertiser_name, advertiser_account,
      webmaster_name, app_doc, creative_title, doc, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // The row without its doc (1-2 KB of overflow pages): a re-sighting that moves only the row's values never reads it.
    findRow: st(`SELECT ${AD_ROW_COLUMNS}, a.days_active, d.content FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?`),
    findDoc: st('SELECT doc FROM ad_docs WHERE rid = ?'),
    updateDoc: st(`UPDATE ad_docs SET countries = ?, categories = ?, languages = ?, advertiser_name = ?, advertiser_account = ?,
      webmaster_name = ?, app_doc = ?, creative_title = ?, doc = ?, content = ? WHERE rid = ?`),
    // OR IGNORE: an ad seen twice in one batch is changed in place twice, and logged once.
    logChange: st('INSERT OR IGNORE INTO live_changes (seq, rid, change) VALUES (?, ?, ?)'),
    getMeta: st('SELECT value FROM meta WHERE key = ?'),
    setMeta: st('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
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
