import { createHash } from 'node:crypto';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { Ad, AdChange } from '@adintel/contracts';
import type { AdChangesQuery, AdChangesResult, AdRecord, ChangedAd, ChangePosition } from '../ad-store.port';
import { conditionsOf } from './ad-planner';

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
 */
export const FEED_TABLES = `
CREATE TABLE IF NOT EXISTS ad_feed (
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  before TEXT,
  after TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (seq, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ad_feed_by_id ON ad_feed (id, seq);
`;

const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The fields of a record (or of a stored doc, which carries the same names) that make its visible state. */
type Visible = Pick<
  Ad,
  | 'title'
  | 'body'
  | 'landing_url'
  | 'landing_domain'
  | 'destination_type'
  | 'platform_name'
  | 'advertiser_id'
  | 'webmaster_id'
  | 'creative_id'
  | 'app_id'
  | 'creative_format'
  | 'countries'
  | 'languages'
  | 'categories'
  | 'status_today'
  | 'last_seen_date'
> & { media?: readonly { url: string }[] };

/** "<status>:<digest>" of an ad as of the data's day `day`. */
export function visibleState(ad: Visible, day: string): string {
  const sorted = (values: readonly string[]) => [...new Set(values)].sort();
  const digest = createHash('sha1')
    .update(
      JSON.stringify([
        ad.title,
        ad.body,
        ad.landing_url,
        ad.landing_domain,
        ad.destination_type,
        ad.platform_name,
        ad.advertiser_id,
        ad.webmaster_id,
        ad.creative_id,
        ad.app_id,
        ad.creative_format,
        sorted(ad.countries),
        sorted(ad.languages),
        sorted(ad.categories),
        (ad.media ?? []).map((m) => m.url),
      ]),
    )
    .digest('base64url');
  const active = ad.status_today === 'active' && ad.last_seen_date >= day;
  return `${active ? 'active' : 'inactive'}:${digest}`;
}

/** What an agent holding the state `before` (null: it never saw the ad) sees changed in `after`; null: nothing. */
export function classify(before: string | null, after: string): AdChange | null {
  if (before === null) return 'new';
  if (before === after) return null;
  const [wasStatus] = before.split(':');
  const [isStatus] = after.split(':');
  if (wasStatus === 'active' && isStatus === 'inactive') return 'ended';
  if (wasStatus === 'inactive' && isStatus === 'active') return 'resumed';
  return wasStatus === isStatus ? 'changed' : null;
}

/** The writer's side: records one live batch's visible changes (SqliteWriter.apply calls it inside its transaction). */
export class ChangeLog {
  private readonly retentionMs: number;

  constructor(
    private readonly db: DatabaseSync,
    retentionDays = Number(process.env['FEED_RETENTION_DAYS']) || DEFAULT_RETENTION_DAYS,
    private readonly now: () => number = Date.now,
  ) {
    this.db.exec(FEED_TABLES);
    this.retentionMs = retentionDays * DAY_MS;
  }

  /**
   * Before the batch is written: each sighting's stored state against the state it brings, and, when the batch moves
   * the data's day, the active ads the day moved past (ended). `seq` is the batch's position.
   */
  record(seq: number, batch: readonly AdRecord[]): void {
    this.startOverOnReload(seq - 1);
    const oldDay = this.day();
    const newDay = batch.reduce((max, ad) => (ad.last_seen_date > max ? ad.last_seen_date : max), oldDay);
    const at = new Date(this.now()).toISOString();
    const stored = this.db.prepare('SELECT d.doc FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?');
    const insert = this.db.prepare('INSERT OR REPLACE INTO ad_feed (seq, id, before, after, at) VALUES (?, ?, ?, ?, ?)');
    /** Per id of the batch: its state before the batch and after its last sighting in it. */
    const states = new Map<string, { before: string | null; after: string }>();
    for (const ad of batch) {
      let state = states.get(ad.id);
      if (!state) {
        const row = stored.get(ad.id) as { doc: string } | undefined;
        state = { before: row ? visibleState(JSON.parse(row.doc) as Visible, oldDay) : null, after: '' };
        states.set(ad.id, state);
      }
      state.after = visibleState(ad, newDay);
    }
    if (newDay > oldDay) {
      const passed = this.db.prepare(
        "SELECT a.id, d.doc FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.status = 'active' AND a.last_seen >= ? AND a.last_seen < ?",
      );
      for (const row of passed.iterate(oldDay, newDay) as Iterable<{ id: string; doc: string }>) {
        if (states.has(row.id)) continue;
        const doc = JSON.parse(row.doc) as Visible;
        states.set(row.id, { before: visibleState(doc, oldDay), after: visibleState(doc, newDay) });
      }
      this.setMeta('feed_day', newDay);
    }
    for (const [id, { before, after }] of states) if (before !== after) insert.run(seq, id, before, after, at);
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
    const row = this.db.prepare('SELECT max(last_seen) AS day FROM ads').get() as { day: string | null };
    return row.day ?? '';
  }

  private dropExpired(): void {
    const cutoff = new Date(this.now() - this.retentionMs).toISOString();
    const row = this.db.prepare('SELECT max(seq) AS seq FROM ad_feed WHERE at < ?').get(cutoff) as { seq: number | null };
    if (row.seq === null) return;
    this.db.prepare('DELETE FROM ad_feed WHERE seq <= ?').run(row.seq);
    this.setMeta('feed_from', String(row.seq));
  }

  private meta(key: string): string | null {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null;
  }

  private setMeta(key: string, value: string): void {
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }
}

/** The reader's side: the store's position, and the feed since an earlier one. */
export class ChangeFeedReader {
  constructor(private readonly db: DatabaseSync) {}

  position(): ChangePosition {
    const rows = this.db.prepare("SELECT key, value FROM meta WHERE key IN ('columns_base', 'seq')").all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    return { store: meta.get('columns_base') ?? '', seq: Number(meta.get('seq') ?? '0') };
  }

  changes(query: AdChangesQuery): AdChangesResult {
    const position = this.position();
    if (query.since.store !== position.store || query.since.seq > position.seq) return { outcome: 'foreign' };
    const from = this.db.prepare("SELECT value FROM meta WHERE key = 'feed_from'").get() as { value: string } | undefined;
    // No log yet: no live batch since the load, so the position is the load's and nothing can be missing.
    if (from && query.since.seq < Number(from.value)) return { outcome: 'expired' };
    if (!this.hasLog() || query.since.seq === position.seq) return { outcome: 'page', page: { rows: [], hasMore: false, lastKey: null }, count: { total: 0, estimated: false }, position };
    const conditions = conditionsOf(query.filter, null);
    const params: SQLInputValue[] = [query.since.seq, query.since.seq, ...conditions.params];
    let sql = `WITH last AS (SELECT id, max(seq) AS seq, after, at FROM ad_feed WHERE seq > ? GROUP BY id)
      SELECT last.id AS id, last.seq AS seq, last.after AS after, last.at AS at, ads.rid AS rid,
        (SELECT b.before FROM ad_feed b WHERE b.id = last.id AND b.seq > ? ORDER BY b.seq LIMIT 1) AS before
      FROM last JOIN ads ON ads.id = last.id WHERE ${conditions.sql}`;
    if (query.after) {
      sql += ' AND (last.seq, last.id) > (?, ?)';
      params.push(Number(query.after.value), query.after.id);
    }
    sql += ' ORDER BY last.seq, last.id';
    const picked: { rid: number; id: string; seq: number; at: string; change: AdChange }[] = [];
    let matched = 0;
    const wanted = Math.max(query.limit + 1, query.countUpTo + 1);
    for (const row of this.db.prepare(sql).iterate(...params) as Iterable<{ id: string; seq: number; after: string; at: string; rid: number; before: string | null }>) {
      const change = classify(row.before, row.after);
      if (!change) continue;
      if (picked.length < query.limit) picked.push({ rid: row.rid, id: row.id, seq: row.seq, at: row.at, change });
      if (++matched >= wanted) break;
    }
    const hasMore = matched > picked.length;
    const docs = this.docsOf(picked.map((p) => p.rid));
    const rows: ChangedAd[] = picked.flatMap((p) => {
      const doc = docs.get(p.rid);
      if (!doc) return [];
      const { media: _media, ...ad } = JSON.parse(doc) as Ad & { media?: unknown };
      return [{ ...ad, change: p.change, changed_at: p.at }];
    });
    const last = picked.at(-1);
    // Counted from after `after`: the rest of the feed, what a caller paging on still has to read.
    const count = matched > query.countUpTo ? { total: query.countUpTo, estimated: true } : { total: matched, estimated: false };
    return { outcome: 'page', page: { rows, hasMore, lastKey: last ? { value: last.seq, id: last.id } : null }, count, position };
  }

  private hasLog(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ad_feed'").get() !== undefined;
  }

  private docsOf(rids: number[]): Map<number, string> {
    if (!rids.length) return new Map();
    const rows = this.db.prepare(`SELECT rid, doc FROM ad_docs WHERE rid IN (${rids.map(() => '?').join(',')})`).all(...rids) as {
      rid: number;
      doc: string;
    }[];
    return new Map(rows.map((r) => [r.rid, r.doc]));
  }
}
