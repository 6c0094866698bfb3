import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Ad, AdChange } from '@adintel/contracts';
import type { AdChangesQuery, AdChangesResult, AdFilter, ChangedAd, ChangePosition } from '../ad-store.port';
import { conditionsOf, ftsQuery } from './ad-planner';
import type { ColumnarAds } from './columnar-search';
import type { ColumnsState } from './live-columns';

/**
 * The change feed's reading side (issue 36): the log the live writer keeps (change-log.ts, ad_feed) read into memory
 * forward as batches come, and "what changed since position P" answered from it against the reader's columns.
 */
/** What feed reads examined in this thread, summed (the benchmark reads it: apps/query-api/bench/feed-bench.ts). */
export const feedReadStats = { logRows: 0, adsProbed: 0 };

/**
 * A visible state as a number: 48 bits of its digest, then its status in the lowest bit (1: active); -1 for none.
 * Two states with the same number are taken as equal: a change whose digest agrees with the state before it in its
 * first 48 bits is missed (about one change in 3e14).
 */
function stateKey(state: string | null): number {
  if (state === null) return -1;
  const colon = state.indexOf(':');
  const digest = Buffer.from(state.slice(colon + 1, colon + 9), 'base64url');
  return digest.readUIntBE(0, 6) * 2 + (state.startsWith('active:') ? 1 : 0);
}

function classifyKeys(before: number, after: number): AdChange | null {
  if (before === -1) return 'new';
  if (before === after) return null;
  const wasActive = before % 2 === 1;
  const isActive = after % 2 === 1;
  if (wasActive === isActive) return 'changed';
  return wasActive ? 'ended' : 'resumed';
}

/** A growable typed array. */
class Column<T extends Int32Array | Float64Array> {
  constructor(
    public data: T,
    private readonly make: (size: number) => T,
  ) {}

  push(value: number, at: number): void {
    if (at >= this.data.length) {
      const grown = this.make(Math.max(1024, this.data.length * 2, at + 1));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[at] = value;
  }
}

const ints = () => new Column(new Int32Array(0), (size) => new Int32Array(size));
const floats = () => new Column(new Float64Array(0), (size) => new Float64Array(size));

/**
 * The change log of one store in memory, as typed arrays in change order (row i is ad_feed's n = first + i), read
 * forward as batches come: per row its batch, the same ad's rows before and after it, its states before and after,
 * when it was written, and the ad's row id at the time; and the rows per advertiser and per affiliate. About 48 bytes a
 * row.
 */
class FeedIndex {
  length = 0;
  readonly seq = ints();
  readonly prev = ints();
  /** The same ad's next row (-1: this is its latest). */
  readonly next = ints();
  readonly before = floats();
  readonly after = floats();
  readonly at = floats();
  /** The ad's row id when the row was read (it changes when a batch replaces the ad's row: ridAt checks). */
  readonly rid = ints();
  /** Row id -> the latest row read for it (a filter's posting list leads from its ads to their rows). */
  readonly rowOfRid = ints();
  /**
   * Per advertiser and per affiliate, the rows of their ads as a chain from the latest back (each row filed under
   * the ad's value when it was read with columns: a row that changes who runs the ad is filed under the new one), so
   * a feed on one of them visits its own rows after the watermark, not every ad it has nor the whole log. 4 bytes a
   * row each, and the latest row per value. Rows < `filedUpTo` are filed.
   */
  readonly rowsOf = { advertiserId: new RowChains(), webmasterId: new RowChains() };
  filedUpTo = 0;

  constructor(
    readonly store: string,
    /** ad_feed's n of row 0. */
    readonly first: number,
  ) {}

  /** Reads the rows after the last one held (all of them in one pass: the join resolves each ad's row id). */
  load(statement: StatementSync): boolean {
    const rows = statement.iterate(this.first + this.length) as Iterable<{ n: number; seq: number; prev: number | null; before: string | null; after: string; at: string; rid: number | null }>;
    for (const row of rows) {
      const i = this.length;
      // Numbers are given one after another; a gap means the log is not the one read so far.
      if (row.n !== this.first + i) return false;
      const prev = row.prev === null ? -1 : row.prev - this.first;
      this.seq.push(row.seq, i);
      this.prev.push(prev, i);
      this.next.push(-1, i);
      this.before.push(stateKey(row.before), i);
      this.after.push(stateKey(row.after), i);
      this.at.push(Date.parse(row.at), i);
      this.rid.push(row.rid ?? 0, i);
      if (row.rid !== null) this.linkRid(row.rid, i);
      if (prev >= 0) this.next.data[prev] = i;
      this.length++;
    }
    return true;
  }

  /** Held as row + 1: a row id never linked reads 0. */
  linkRid(rid: number, row: number): void {
    this.rowOfRid.push(row + 1, rid);
  }

  /** The latest row of the ad with this row id, or -1. */
  rowOf(rid: number): number {
    return (this.rowOfRid.data[rid] ?? 0) - 1;
  }

  /** The first row of a batch after `seq` (the length when none is). */
  firstAfter(seq: number): number {
    const s = this.seq.data;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((s[mid] ?? 0) <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Rows filed under values, each value's rows chained from its latest back. */
class RowChains {
  private readonly latest = new Map<string, number>();
  private readonly before = ints();

  file(value: string | undefined, row: number): void {
    if (value === undefined) return;
    this.before.push(this.latest.get(value) ?? -1, row);
    this.latest.set(value, row);
  }

  /** The rows filed under `value` from `start` on, the latest first. */
  each(value: string, start: number, visit: (row: number) => void): void {
    const before = this.before.data;
    for (let row = this.latest.get(value) ?? -1; row >= start; row = before[row] ?? -1) visit(row);
  }
}

/** The log's rows from a number on, each with the ad's row id now (FeedIndex.load). */
const LOAD_ROWS = `SELECT f.n AS n, f.seq AS seq, f.prev AS prev, f.before AS before, f.after AS after, f.at AS at, a.rid AS rid
  FROM ad_feed f LEFT JOIN ads a ON a.id = f.id WHERE f.n >= ? ORDER BY f.n`;

/** Checks one ad, by its row id, against the filter. */
type AdCheck = (rid: number) => boolean;

/** The positions (in the reader's columns) of ads that hold every match of a filter, how many, and the checks left. */
interface Candidates {
  size: number;
  each(visit: (p: number) => void): void;
  /** What a candidate must still pass (null: nothing, every candidate matches). */
  besides: ((p: number) => boolean) | null;
}

function popcount(bits: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) {
    let v = bits[i] ?? 0;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

function eachBit(bits: Uint32Array, visit: (p: number) => void): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w] ?? 0;
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      word = (word ^ (1 << bit)) >>> 0;
      visit(w * 32 + bit);
    }
  }
}

/**
 * Per position of a set of columns: the latest log row of the ad there (-1: none), that row's previous row of the
 * same ad, and the change it makes alone (OWN_CHANGES, with the status it leaves in bit 3); per log row, its position.
 * A filter's candidates come in position order, so these are read in order too: an ad whose latest row is its only
 * row after the watermark (most of them) is answered without reaching into the log, which is read out of order.
 */
interface RowsOfPositions {
  index: FeedIndex;
  upTo: number;
  rows: Int32Array;
  prevs: Int32Array;
  own: Uint8Array;
  positions: Int32Array;
}

/** The change codes of RowsOfPositions.own (0: none). */
const OWN_CHANGES: readonly (AdChange | null)[] = [null, 'new', 'changed', 'ended', 'resumed'];

function latestAt(held: RowsOfPositions, p: number, row: number): void {
  const { index } = held;
  const was = index.before.data[row] ?? -1;
  const isNow = index.after.data[row] ?? 0;
  const change = was === isNow ? null : (classifyKeys(was, isNow) ?? 'changed');
  held.rows[p] = row;
  held.prevs[p] = index.prev.data[row] ?? -1;
  held.own[p] = OWN_CHANGES.indexOf(change) | (isNow % 2 === 1 ? 8 : 0);
  if (row < held.positions.length) held.positions[row] = p;
}

/**
 * A page of the feed: the `limit` earliest rows (change order) among those offered, in any order, and whether more
 * were offered. Kept sorted, `limit` + 1 at most (a page is small: search_ads' limit).
 */
class PageRows {
  private readonly held: { row: number; rid: number; change: AdChange }[] = [];

  constructor(private readonly limit: number) {}

  offer(row: number, rid: number, change: AdChange): void {
    const held = this.held;
    const last = held.at(-1);
    if (held.length > this.limit && last && row > last.row) return;
    let i = held.length;
    while (i > 0 && (held[i - 1]?.row ?? 0) > row) i--;
    held.splice(i, 0, { row, rid, change });
    if (held.length > this.limit + 1) held.pop();
  }

  full(): boolean {
    return this.held.length >= this.limit;
  }

  hasMore(): boolean {
    return this.held.length > this.limit;
  }

  rows(): { row: number; rid: number; change: AdChange }[] {
    return this.held.slice(0, this.limit);
  }
}

/** The reader's side: the store's position, and the feed since an earlier one. */
export class ChangeFeedReader {
  private index: FeedIndex | null = null;
  /** Statements prepared once (a feed call runs several small ones; preparing each anew cost more than running it). */
  private readonly statements = new Map<string, StatementSync>();

  /** `columns`: the reader's ad columns, to check filters on (without them each ad is checked in SQL). */
  constructor(
    private readonly db: DatabaseSync,
    private readonly columns: { current(): ColumnsState | null } | null = null,
  ) {}

  position(): ChangePosition {
    const rows = this.sql("SELECT key, value FROM meta WHERE key IN ('columns_base', 'seq')").all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    return { store: meta.get('columns_base') ?? '', seq: Number(meta.get('seq') ?? '0') };
  }

  /**
   * The ads matching the filter whose visible state changed after `since`, in change order: each ad's latest row after
   * it (in memory), classified against the first of its rows after `since` and checked against the filter on the
   * columns, found by the fewest of: the log's rows after `since`, the filter's candidates (by position), or an
   * advertiser's or affiliate's own rows (RowChains). The count is of the whole feed (up to countUpTo), whatever page
   * `after` asks for, as search_ads' total is of every match: the same on every page.
   */
  changes(query: AdChangesQuery): AdChangesResult {
    const position = this.position();
    if (query.since.store !== position.store || query.since.seq > position.seq) return { outcome: 'foreign' };
    const from = this.sql("SELECT value FROM meta WHERE key = 'feed_from'").get() as { value: string } | undefined;
    // No log yet: no live batch since the load, so the position is the load's and nothing can be missing.
    if (from && query.since.seq < Number(from.value)) return { outcome: 'expired' };
    const empty: AdChangesResult = { outcome: 'page', page: { rows: [], hasMore: false, lastKey: null }, count: { total: 0, estimated: false }, position };
    if (!this.hasLog() || query.since.seq === position.seq) return empty;
    const index = this.current(position.store);
    const state = this.columns?.current() ?? null;
    const columnar = state?.columnar ?? null;
    const filter = this.checkFor(query.filter, state);
    if (filter === null) return empty;
    const { check, checkAt, candidates } = filter;
    const wantActive = query.filter.status === undefined ? null : query.filter.status === 'active';
    const afterRow = query.after ? Number(query.after.value) - index.first : -1;
    const start = index.firstAfter(query.since.seq);
    const { next, prev, before, after, at } = index;
    const nexts = next.data;
    const prevs = prev.data;
    const befores = before.data;
    const afters = after.data;
    /** The change of the ad whose latest row is `row` since `start` (null: none, or not of the status asked). */
    const changeOf = (row: number): AdChange | null => {
      let firstRow = row;
      for (let p = prevs[row] ?? -1; p >= start; p = prevs[p] ?? -1) firstRow = p;
      const isNow = afters[row] ?? 0;
      const was = befores[firstRow] ?? -1;
      if (was === isNow) return null; // as it was: no change
      // The status the ad has now: active only while its last sighting is the data's day.
      if (wantActive !== null && (isNow % 2 === 1) !== wantActive) return null;
      return classifyKeys(was, isNow) ?? 'changed';
    };
    const page = new PageRows(query.limit);
    let matched = 0;
    let examined = 0;
    let probed = 0;
    // An advertiser's or an affiliate's own rows after `since` (the latest first; the page keeps the earliest): fewer
    // than the ads it has (a filter's posting list) or the whole log after `since` (one day's: 2-15% of them here).
    const ownKey = query.filter.advertiserId !== undefined ? 'advertiserId' : query.filter.webmasterId !== undefined ? 'webmasterId' : null;
    const own = columnar && checkAt && ownKey ? ownKey : null;
    if (own && columnar && checkAt) {
      const positionOfRow = this.rowsByPosition(columnar, index).positions;
      const rids = columnar.cols.rid;
      // Matches come latest first: the page takes them in change order (each offer past a full page is then a compare).
      const found: { row: number; p: number; change: AdChange }[] = [];
      index.rowsOf[own].each(query.filter[own] ?? '', start, (row) => {
        examined++;
        if ((nexts[row] ?? -1) !== -1) return; // a later row of the same ad stands for it
        const p = positionOfRow[row] ?? -1;
        if (p < 0) return;
        const change = changeOf(row);
        if (change === null) return;
        probed++;
        if (!checkAt(p)) return;
        matched++;
        if (row > afterRow) found.push({ row, p, change });
      });
      for (let i = found.length - 1; i >= 0; i--) {
        const { row, p, change } = found[i] as (typeof found)[number];
        page.offer(row, rids[p] ?? 0, change);
      }
    }
    if (own) {
      // answered above
    } else if (candidates && columnar && candidates.size < index.length - start) {
      // Fewer candidates than log rows after `since`: each candidate's latest row, read by its position, in the
      // posting list's order; the page keeps the earliest rows in change order as they come (no sort, no marks).
      const { rows: byPosition, prevs: prevOf, own } = this.rowsByPosition(columnar, index);
      const visitCheck = candidates.besides;
      const rids = columnar.cols.rid;
      candidates.each((p) => {
        const row = byPosition[p] ?? -1;
        if (row < start) return;
        examined++;
        let change: AdChange | null;
        if ((prevOf[p] ?? -1) < start) {
          // Its only row after `since`: the change that row makes alone.
          const code = own[p] ?? 0;
          change = OWN_CHANGES[code & 7] ?? null;
          if (wantActive !== null && (code & 8) !== 0 !== wantActive) change = null;
        } else change = changeOf(row);
        if (change === null) return;
        probed++;
        if (visitCheck && !visitCheck(p)) return;
        matched++;
        if (row > afterRow) page.offer(row, rids[p] ?? 0, change);
      });
    } else {
      // The log's rows after `since`, in change order; with a filter on the columns, each row's ad by its position.
      const positionOfRow = checkAt && columnar ? this.rowsByPosition(columnar, index).positions : null;
      for (let row = start; row < index.length; row++) {
        examined++;
        if ((nexts[row] ?? -1) !== -1) continue; // a later row of the same ad stands for it
        const change = changeOf(row);
        if (change === null) continue;
        probed++;
        let rid = 0;
        if (positionOfRow && checkAt && columnar) {
          const p = positionOfRow[row] ?? -1;
          if (p < 0 || !checkAt(p)) continue;
          rid = columnar.cols.rid[p] ?? 0;
        } else {
          // Without a filter the row id is needed only for the rows a page shows.
          if (check || (row > afterRow && !page.full())) rid = this.ridAt(index, row, columnar);
          if (check && !check(rid)) continue;
        }
        matched++;
        if (row > afterRow) page.offer(row, rid, change);
        if (page.hasMore() && matched > query.countUpTo) break;
      }
    }
    const picked = page.rows();
    const hasMore = page.hasMore();
    feedReadStats.logRows += examined;
    feedReadStats.adsProbed += probed;
    const docs = this.docsOf(picked.map((p) => p.rid));
    const rows: ChangedAd[] = [];
    let lastKey: { value: number; id: string } | null = null;
    for (const p of picked) {
      const doc = docs.get(p.rid);
      if (!doc) continue;
      const { media: _media, ...ad } = JSON.parse(doc) as Ad & { media?: unknown };
      // The stored doc keeps the status of its last sighting; an ad the day moved past has ended since.
      const status = (after.data[p.row] ?? 0) % 2 === 1 ? 'active' : 'inactive';
      rows.push({ ...ad, status_today: status, change: p.change, changed_at: new Date(at.data[p.row] ?? 0).toISOString() });
      lastKey = { value: index.first + p.row, id: ad.id };
    }
    const count = matched > query.countUpTo ? { total: query.countUpTo, estimated: true } : { total: matched, estimated: false };
    return { outcome: 'page', page: { rows, hasMore, lastKey }, count, position };
  }

  /** The log in memory, read forward to this snapshot; read anew for another store, or once most of it has expired. */
  private current(store: string): FeedIndex {
    const bounds = this.sql("SELECT min(n) AS first, (SELECT seq FROM sqlite_sequence WHERE name = 'ad_feed') AS last FROM ad_feed").get() as {
      first: number | null;
      last: number | null;
    };
    // An empty log (every row expired) starts where the next row will.
    const first = bounds.first ?? (bounds.last ?? 0) + 1;
    let index = this.index;
    const mostlyExpired = index !== null && first - index.first > index.length / 2;
    if (!index || index.store !== store || first < index.first || mostlyExpired || !index.load(this.sql(LOAD_ROWS))) {
      index = new FeedIndex(store, first);
      if (!index.load(this.sql(LOAD_ROWS))) throw new Error('the change log changed while it was read');
    }
    this.index = index;
    return index;
  }

  /**
   * Per position of these columns, the latest log row of the ad there (-1: none): built once per set of columns (a
   * pass over every ad, like the columns' own indexes after a batch), then brought forward with the rows read since,
   * so a filter's candidates find their rows in position order rather than by row id all over memory.
   */
  private rowsByPosition(columnar: ColumnarAds, index: FeedIndex): RowsOfPositions {
    let held = this.byPosition.get(columnar);
    if (!held || held.index !== index) {
      const n = columnar.cols.n;
      held = { index, upTo: 0, rows: new Int32Array(n).fill(-1), prevs: new Int32Array(n), own: new Uint8Array(n), positions: new Int32Array(0) };
      held.positions = new Int32Array(index.length).fill(-1);
      const rids = columnar.cols.rid;
      for (let p = 0; p < n; p++) {
        const row = index.rowOf(rids[p] ?? 0);
        if (row >= 0) latestAt(held, p, row);
      }
      held.upTo = index.length;
      this.byPosition.set(columnar, held);
    }
    if (held.upTo < index.length) {
      const positions = new Int32Array(index.length).fill(-1);
      positions.set(held.positions.subarray(0, Math.min(held.upTo, positions.length)));
      held.positions = positions;
      for (let row = held.upTo; row < index.length; row++) {
        const p = columnar.positionOf(index.rid.data[row] ?? 0);
        if (p >= 0) latestAt(held, p, row);
      }
      held.upTo = index.length;
    }
    if (index.filedUpTo < index.length) {
      const { advertiser, webmaster, dicts } = columnar.cols;
      for (let row = index.filedUpTo; row < index.length; row++) {
        const p = held.positions[row] ?? -1;
        if (p < 0) continue;
        index.rowsOf.advertiserId.file(dicts.advertiserIds[advertiser[p] ?? -1], row);
        index.rowsOf.webmasterId.file(dicts.webmasterIds[webmaster[p] ?? -1], row);
      }
      index.filedUpTo = index.length;
    }
    return held;
  }

  private readonly byPosition = new WeakMap<ColumnarAds, RowsOfPositions>();

  /** The ad's row id now: looked up again when a batch replaced its row since the log was read. */
  private ridAt(index: FeedIndex, row: number, columnar: ColumnarAds | null): number {
    const held = index.rid.data[row] ?? 0;
    if (held > 0 && (columnar ? columnar.positionOf(held) >= 0 : true)) return held;
    const found = this.db.prepare('SELECT a.rid AS rid FROM ad_feed f JOIN ads a ON a.id = f.id WHERE f.n = ?').get(index.first + row) as { rid: number } | undefined;
    const rid = found?.rid ?? 0;
    index.rid.data[row] = rid;
    if (rid > 0) index.linkRid(rid, row);
    return rid;
  }

  /**
   * The filter (its status aside: the feed checks the status the ad has now) as a check per ad, on the columns when
   * the reader has them (words by their bitsets, or the text index's rows), else in SQL; and the smallest set of ads
   * known to hold every match (a posting list, the words' bits or rows), which the feed visits instead of the log when
   * it is the shorter. Check undefined: nothing to check; null: nothing can match.
   */
  private checkFor(
    filter: AdFilter,
    state: ColumnsState | null,
  ): { check: AdCheck | undefined; checkAt: ((p: number) => boolean) | null; candidates: Candidates | null } | null {
    const { status: _status, words: wanted, ...rest } = filter;
    if (!wanted?.length && !Object.keys(rest).length) return { check: undefined, checkAt: null, candidates: null };
    const columnar = state?.columnar;
    if (!state || !columnar || (filter.landingDomain && !columnar.servesHosts)) {
      const conditions = conditionsOf({ ...rest, ...(wanted ? { words: wanted } : {}) }, null);
      const statement = this.db.prepare(`SELECT 1 FROM ads WHERE ads.rid = ? AND ${conditions.sql}`);
      return { check: (rid) => statement.get(rid, ...conditions.params) !== undefined, checkAt: null, candidates: null };
    }
    const others = Object.keys(rest).length > 0;
    const compiled = others ? columnar.filterCheck(rest) : { matches: () => true, postings: null, besides: null };
    if (!compiled) return null;
    const { matches, postings, besides } = compiled;
    const sources: Candidates[] = [];
    let inWords: ((rid: number, p: number) => boolean) | null = null;
    if (wanted?.length) {
      const each = wanted.map((w) => state.wordBits.get(w));
      if (each.every((b) => b !== undefined)) {
        const [first, ...more] = each as Uint32Array[];
        const bits = first ? first.slice() : new Uint32Array(0);
        for (const other of more) for (let i = 0; i < bits.length; i++) bits[i] = (bits[i] ?? 0) & (other[i] ?? 0);
        const has = (p: number) => ((bits[p >>> 5] ?? 0) & (1 << (p & 31))) !== 0;
        inWords = (_rid, p) => has(p);
        sources.push({ size: popcount(bits), each: (visit) => eachBit(bits, visit), besides: others ? matches : null });
        if (postings) sources.push({ size: postings.length, each: (visit) => postings.forEach(visit), besides: besides ? (p) => besides(p) && has(p) : has });
      } else {
        const statement = this.db.prepare('SELECT rowid FROM ads_fts WHERE ads_fts MATCH ?');
        const found = new Set((statement.all(ftsQuery(wanted)) as { rowid: number }[]).map((r) => r.rowid));
        inWords = (rid) => found.has(rid);
        const each = (visit: (p: number) => void) =>
          found.forEach((rid) => {
            const p = columnar.positionOf(rid);
            if (p >= 0) visit(p);
          });
        sources.push({ size: found.size, each, besides: others ? matches : null });
        const rids = columnar.cols.rid;
        if (postings) sources.push({ size: postings.length, each: (visit) => postings.forEach(visit), besides: (p) => (!besides || besides(p)) && found.has(rids[p] ?? 0) });
      }
    } else if (postings) {
      sources.push({ size: postings.length, each: (visit) => postings.forEach(visit), besides });
    }
    const inWordsNow = inWords;
    const rids = columnar.cols.rid;
    const checkAt = (p: number) => matches(p) && (!inWordsNow || inWordsNow(rids[p] ?? 0, p));
    const check = (rid: number) => {
      const p = columnar.positionOf(rid);
      return p >= 0 && checkAt(p);
    };
    const candidates = sources.reduce<Candidates | null>((best, c) => (!best || c.size < best.size ? c : best), null);
    return { check, checkAt, candidates };
  }

  private sql(text: string): StatementSync {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private hasLog(): boolean {
    return this.sql("SELECT 1 FROM pragma_table_info('ad_feed') WHERE name = 'prev'").get() !== undefined;
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
