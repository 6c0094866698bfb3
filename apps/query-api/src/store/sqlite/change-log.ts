import type { DatabaseSync } from 'node:sqlite';
import type { AdRecord } from '../ad-store.port';
import { type Visible, visibleState } from '../visible-state';
import { MOVING_COLUMNS, type MovingFields, type MovingRow, withMoving } from './moving-values';

/**
 * The change feed's log (issue 36, search_ads `changed_since`). The live writer records, in the transaction of each
 * batch, one row per ad whose VISIBLE state moved: its state before the batch (null: the ad is new) and after it.
 * A visible state is the effective status (active only while the ad's last sighting is the data's day: an ad the
 * day moved past has ended) and a digest of the fields an agent sees change (texts, landing, countries, languages,
 * categories, media, who runs it); dates, activity counters, popularity and impressions are left out, so a
 * re-sighting that only moves them logs nothing. A reader then answers "what changed since position P" as the
 * difference of two snapshots: per ad, its state before its first change after P against its state after its last.
 *
 * Positions are `meta.seq` (the live batch) within `meta.columns_base` (the loaded data: a reload starts a new store,
 * and the log starts over with it). Rows older than the retention window (FEED_RETENTION_DAYS, default 30) are
 * dropped as batches come; `feed_from` is then the oldest position the log still answers from.
 *
 * Each row is numbered `n` in change order (its batch, then the ad's id) and names the same ad's previous row
 * (`prev`), so a reader follows an ad's rows without looking its id up: the feed since P is the rows after P that no
 * later row names, each against the first of its chain after P (change-feed-reader.ts keeps this in memory).
 */
export const FEED_TABLES = `
CREATE TABLE IF NOT EXISTS ad_feed (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  prev INTEGER,
  before TEXT,
  after TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ad_feed_by_id ON ad_feed (id, n);
`;

/** What record() reads of a stored doc: its visible fields and its first sighting. */
export type StoredVisible = Visible & { first_seen_date?: string };

const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The writer's side: records one live batch's visible changes (SqliteWriter.apply calls it inside its transaction). */
export class ChangeLog {
  private readonly retentionMs: number;

  constructor(
    private readonly db: DatabaseSync,
    retentionDays = Number(process.env['FEED_RETENTION_DAYS']) || DEFAULT_RETENTION_DAYS,
    private readonly now: () => number = Date.now,
  ) {
    this.upgradeLayout();
    this.db.exec(FEED_TABLES);
    this.retentionMs = retentionDays * DAY_MS;
  }

  /**
   * A log written before rows were numbered (no `prev`) is dropped: the watermarks issued before it are then expired
   * (a 410 saying to re-baseline), never answered from a log that cannot say what they missed.
   */
  private upgradeLayout(): void {
    const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ad_feed'").get() !== undefined;
    if (!exists || this.db.prepare("SELECT 1 FROM pragma_table_info('ad_feed') WHERE name = 'prev'").get() !== undefined) return;
    this.db.exec('DROP TABLE ad_feed');
    this.setMeta('feed_from', this.meta('seq') ?? '0');
  }

  /**
   * Before the batch is written: each sighting's stored state against the state it brings, and, when the batch moves
   * the data's day, the active ads the day moved past (ended). `seq` is the batch's position; `storedDoc` gives an
   * id's stored ad as it was before the batch, its moving values the row's (the writer reads and parses each sighted
   * ad's doc at most once, for itself and for this, and not at all when the sighting keeps what the doc holds).
   */
  record(seq: number, batch: readonly AdRecord[], storedDoc: (id: string) => StoredVisible | null): void {
    this.startOverOnReload(seq - 1);
    const oldDay = this.day();
    const newDay = batch.reduce((max, ad) => (ad.last_seen_date > max ? ad.last_seen_date : max), oldDay);
    const at = new Date(this.now()).toISOString();
    const insert = this.db.prepare('INSERT INTO ad_feed (seq, id, prev, before, after, at) VALUES (?, ?, ?, ?, ?, ?)');
    const previous = this.db.prepare('SELECT max(n) AS n FROM ad_feed WHERE id = ?');
    /**
     * Per id of the batch: its state before the batch and after its last sighting in it; `moves`: a sighting that
     * moves first_seen_date alone makes the writer replace the ad's row (a new row id, SqliteWriter.seenAgain) with
     * nothing visible to log, so a row with the same state before and after is logged for it: readers that hold the
     * ad's row id (FeedIndex) read the new one. Such a row changes no difference of snapshots.
     */
    const states = new Map<string, { before: string | null; after: string; moves: boolean }>();
    for (const ad of batch) {
      let state = states.get(ad.id);
      if (!state) {
        const doc = storedDoc(ad.id);
        state = { before: doc ? visibleState(doc, oldDay) : null, after: '', moves: false };
        state.moves = doc !== null && doc.first_seen_date !== ad.first_seen_date;
        states.set(ad.id, state);
      }
      state.after = visibleState(ad, newDay);
    }
    if (newDay > oldDay) {
      const passed = this.db.prepare(
        `SELECT a.id, d.doc, ${MOVING_COLUMNS} FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.status = 'active' AND a.last_seen >= ? AND a.last_seen < ?`,
      );
      for (const row of passed.iterate(oldDay, newDay) as Iterable<MovingRow & { id: string; doc: string }>) {
        if (states.has(row.id)) continue;
        // The doc's moving values may be older than the row's (moving-values.ts).
        const doc = withMoving(JSON.parse(row.doc) as Visible & MovingFields, row);
        states.set(row.id, { before: visibleState(doc, oldDay), after: visibleState(doc, newDay), moves: false });
      }
      this.setMeta('feed_day', newDay);
    }
    // Numbered in change order (AUTOINCREMENT: one after another, never reused): the batch, then the ad's id.
    const changed = [...states].filter(([, { before, after, moves }]) => before !== after || moves).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [id, { before, after }] of changed) {
      const prev = (previous.get(id) as { n: number | null }).n;
      // A row that only moved matters to readers that hold an earlier row of the ad.
      if (before !== after || prev !== null) insert.run(seq, id, prev, before, after, at);
    }
    this.dropExpired();
  }

  /** A store loaded anew (finish() set another columns_base) starts an empty log at its current position. */
  private startOverOnReload(position: number): void {
    const base = this.meta('columns_base') ?? '';
    if (this.meta('feed_base') === base) return;
    this.db.exec('DELETE FROM ad_feed');
    this.setMeta('feed_base', base);
    this.setMeta('feed_from', String(position));
    this.db.prepare("DELETE FROM meta WHERE key = 'feed_day'").run();
  }

  /** The data's day: the newest last sighting (read once per store, then carried in meta). */
  private day(): string {
    const known = this.meta('feed_day');
    if (known) return known;
    // A scan of every ad (last_seen has no index of its own): done once, then carried, or every batch that does not
    // move the day would scan the store again (a linear pass per batch, about 0.8 s at 1M ads).
    const row = this.db.prepare('SELECT max(last_seen) AS day FROM ads').get() as { day: string | null };
    const day = row.day ?? '';
    if (day) this.setMeta('feed_day', day);
    return day;
  }

  /** Rows are in the order they were written, so the expired ones are a prefix: read no further than it. */
  private dropExpired(): void {
    const cutoff = new Date(this.now() - this.retentionMs).toISOString();
    let last: number | null = null;
    for (const row of this.db.prepare('SELECT seq, at FROM ad_feed ORDER BY n').iterate() as Iterable<{ seq: number; at: string }>) {
      if (row.at >= cutoff) break;
      last = row.seq;
    }
    if (last === null) return;
    this.db.prepare('DELETE FROM ad_feed WHERE seq <= ?').run(last);
    this.setMeta('feed_from', String(last));
  }

  private meta(key: string): string | null {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null;
  }

  private setMeta(key: string, value: string): void {
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }
}
