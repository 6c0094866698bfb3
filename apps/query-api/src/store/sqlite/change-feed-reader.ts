import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Ad, AdChange } from '@adintel/contracts';
import type { AdChangesQuery, AdChangesResult, AdFilter, ChangedAd, ChangePosition } from '../ad-store.port';
import { conditionsOf, ftsQuery } from './ad-planner';
import { FeedIndex, firstRowAfter, LOAD_ROWS, SEQ_AT } from './change-feed-index';
import type { ColumnarAds } from './columnar-search';
import type { ColumnsState } from './live-columns';
import { MOVING_COLUMNS, type MovingRow, withMoving } from './moving-values';

/**
 * The change feed's reading side (issue 36): the log the live writer keeps (change-log.ts, ad_feed) held in memory
 * from the oldest watermark asked for lately (change-feed-index.ts), read forward as batches come, and "what changed
 * since position P" answered from it against the reader's columns.
 */
/**
 * What feed reads examined in this thread, summed, and what the last one held in memory: the log's rows and their bytes
 * (FeedIndex), and the per-position arrays of the columns it read, with the CPU time (this thread's) of their last build or carry
 * forward (once per set of columns: after every live batch), and how many times they were built whole (`builds`: a
 * new layout, after a merge, a load or a new window of the log) or brought forward (`carried`: a tail batch). The
 * benchmark and the tests read it: bench/feed-bench.ts.
 */
export const feedReadStats = { logRows: 0, adsProbed: 0, heldRows: 0, heldBytes: 0, positionBytes: 0, lastBuildMs: 0, builds: 0, carried: 0 };

/** Change codes (0: none): what the loops below carry instead of strings. */
const CHANGES: readonly (AdChange | null)[] = [null, 'new', 'changed', 'ended', 'resumed'];

/** The change from state key `before` (-1: none) to `after` (lowest bit: active), as a code of CHANGES. */
function changeCode(before: number, after: number): number {
  if (before === -1) return 1;
  if (before === after) return 0;
  const wasActive = before % 2 === 1;
  if (wasActive === (after % 2 === 1)) return 2;
  return wasActive ? 3 : 4;
}

/**
 * What the log held says of the ads of a set of columns, read by a filter's candidates in position order. The ads
 * with a row held (`inWindow`: one bit per position) are ranked in position order (`rankBase[w]`: how many are before
 * word w; `changed[rank]`: the position), and per rank: `rows[2 rank]` its latest row, `rows[2 rank + 1]` its first
 * row held; `codes[rank]`: bits 0-2 the change from its state before its first row to its state after its latest
 * (CHANGES: the answer for every watermark up to its first row, the oldest held included), bits 3-5 the change its
 * latest row makes alone (the answer when that row is its only one after the watermark), bit 6 whether it is active
 * now. Per log row that is its ad's latest, its position (-1: none, and for every other row). A candidate without a
 * row costs one bit read from a bitset that stays in cache; one with a row, reads of small arrays in rank order. About
 * 2 bits a position, 13 bytes an ad with rows and 4 a row: an ad is answered from these alone unless its rows straddle
 * the watermark.
 */
interface RowsOfPositions {
  index: FeedIndex;
  upTo: number;
  /** The layout of the columns these were built or brought forward for (ColumnsState.layout), and their length. */
  layout: string;
  n: number;
  inWindow: Uint32Array;
  rankBase: Int32Array;
  changed: Int32Array;
  rows: Int32Array;
  codes: Uint8Array;
  positions: Int32Array;
}

/** Set bits in a 32-bit word. */
function bitCount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A page of the feed: the `limit` earliest rows (change order) among those offered, in any order, and whether more
 * were offered. Kept sorted, `limit` + 1 at most (a page is small: search_ads' limit).
 */
class PageRows {
  private readonly row: Int32Array;
  private readonly p: Int32Array;
  private readonly code: Uint8Array;
  size = 0;

  constructor(private readonly limit: number) {
    this.row = new Int32Array(limit + 1);
    this.p = new Int32Array(limit + 1);
    this.code = new Uint8Array(limit + 1);
  }

  offer(row: number, p: number, code: number): void {
    const cap = this.limit + 1;
    if (this.size === cap && row > (this.row[cap - 1] ?? 0)) return;
    let i = this.size === cap ? cap - 1 : this.size++;
    while (i > 0 && (this.row[i - 1] ?? 0) > row) {
      this.row[i] = this.row[i - 1] ?? 0;
      this.p[i] = this.p[i - 1] ?? 0;
      this.code[i] = this.code[i - 1] ?? 0;
      i--;
    }
    this.row[i] = row;
    this.p[i] = p;
    this.code[i] = code;
  }

  clear(): void {
    this.size = 0;
  }

  full(): boolean {
    return this.size >= this.limit;
  }

  hasMore(): boolean {
    return this.size > this.limit;
  }

  rows(): { row: number; p: number; change: AdChange }[] {
    const out: { row: number; p: number; change: AdChange }[] = [];
    for (let i = 0; i < Math.min(this.size, this.limit); i++) out.push({ row: this.row[i] ?? 0, p: this.p[i] ?? 0, change: CHANGES[this.code[i] ?? 0] ?? 'changed' });
    return out;
  }
}

/** How many candidates the feed visits rather than one row of the log after the watermark (see onColumns). */
const CANDIDATES_PER_ROW = 8;

/** How long the rows of a watermark stay held after it was last asked for (then the window moves up to the next). */
const WINDOW_HELD_MS = 60 * 60 * 1000;

/** The reader's side: the store's position, and the feed since an earlier one. */
export class ChangeFeedReader {
  private index: FeedIndex | null = null;
  /** Statements prepared once (a feed call runs several small ones; preparing each anew cost more than running it). */
  private readonly statements = new Map<string, StatementSync>();
  private logExists = false;
  /** The oldest watermark (seq) asked for in this period of WINDOW_HELD_MS and in the one before it. */
  private readonly use = { started: 0, oldest: Infinity, before: Infinity };
  /** What the last feed on the columns kept per position (its own arrays: no columns are held alive by it). */
  private held: RowsOfPositions | null = null;

  /**
   * `columns`: the reader's ad columns, to check filters on (without them each ad is checked in SQL). `heldMs`: how
   * long rows stay held after the oldest watermark that needs them was last asked for (tests shorten it).
   */
  constructor(
    private readonly db: DatabaseSync,
    private readonly columns: { current(): ColumnsState | null } | null = null,
    private readonly heldMs = WINDOW_HELD_MS,
    private readonly now: () => number = Date.now,
  ) {}

  position(): ChangePosition {
    const { store, seq } = this.meta();
    return { store, seq };
  }

  private meta(): { store: string; seq: number; feedFrom: number | null } {
    const rows = this.sql("SELECT key, value FROM meta WHERE key IN ('columns_base', 'seq', 'feed_from')").all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    const feedFrom = meta.get('feed_from');
    return { store: meta.get('columns_base') ?? '', seq: Number(meta.get('seq') ?? '0'), feedFrom: feedFrom === undefined ? null : Number(feedFrom) };
  }

  /**
   * The ads matching the filter whose visible state changed after `since`, in change order: each ad's latest row after
   * it (in memory), classified against the first of its rows after `since` and checked against the filter on the
   * columns. Found by one of: an advertiser's or affiliate's own rows (RowChains); the filter's candidates (a posting
   * list, the words' bits, every position), latest positions first, counting up to countUpTo + 1 as a plain search
   * counts (then the page from the log in change order); or the log's rows after `since` in change order, when they
   * are fewer than the candidates. The count is of the whole feed (up to countUpTo, then estimated), whatever page
   * `after` asks for, as search_ads' total is of every match: the same on every page.
   */
  changes(query: AdChangesQuery): AdChangesResult {
    const meta = this.meta();
    const position = { store: meta.store, seq: meta.seq };
    if (query.since.store !== position.store || query.since.seq > position.seq) return { outcome: 'foreign' };
    // No log yet: no live batch since the load, so the position is the load's and nothing can be missing.
    if (meta.feedFrom !== null && query.since.seq < meta.feedFrom) return { outcome: 'expired' };
    const empty: AdChangesResult = { outcome: 'page', page: { rows: [], hasMore: false, lastKey: null }, count: { total: 0, estimated: false }, position };
    if (!this.hasLog() || query.since.seq === position.seq) return empty;
    const index = this.current(position, query.since.seq, meta.feedFrom ?? 0);
    const state = this.columns?.current() ?? null;
    const columnar = state?.columnar ?? null;
    const filter = this.checkFor(query.filter, state);
    if (filter === null) return empty;
    const start = index.firstAfter(query.since.seq);
    const afterRow = query.after ? Number(query.after.value) - index.first : -1;
    const page = new PageRows(query.limit);
    const held = state && columnar && filter.checkAt ? this.rowsByPosition(state, index) : null;
    const found =
      columnar && held
        ? this.onColumns(index, held, columnar, query, filter, start, afterRow, page)
        : this.inSql(index, columnar, query, filter.check, start, afterRow, page);
    feedReadStats.heldRows = index.length;
    feedReadStats.heldBytes = index.bytes();
    feedReadStats.positionBytes = held
      ? held.inWindow.byteLength + held.rankBase.byteLength + held.changed.byteLength + held.rows.byteLength + held.codes.byteLength + held.positions.byteLength
      : 0;
    const picked = page.rows();
    const rids = picked.map(({ p, row }) => (found.ridOf ? found.ridOf(p, row) : p));
    const docs = this.docsOf(rids);
    const rows: ChangedAd[] = [];
    let lastKey: { value: number; id: string } | null = null;
    for (const [i, p] of picked.entries()) {
      const doc = docs.get(rids[i] ?? 0);
      if (!doc) continue;
      const { media: _media, ...ad } = doc;
      // The stored doc keeps the status of its last sighting; an ad the day moved past has ended since.
      const status = (index.after[p.row] ?? 0) % 2 === 1 ? 'active' : 'inactive';
      rows.push({ ...ad, status_today: status, change: p.change, changed_at: new Date(index.atOf(p.row)).toISOString() });
      lastKey = { value: index.first + p.row, id: ad.id };
    }
    const matched = found.matched;
    const count = matched > query.countUpTo ? { total: query.countUpTo, estimated: true } : { total: matched, estimated: false };
    return { outcome: 'page', page: { rows, hasMore: page.hasMore(), lastKey }, count, position };
  }

  /**
   * The feed on the columns: `page` filled, and the matches counted (up to countUpTo + 1 where the source allows it).
   * Every loop reads typed arrays: per candidate its latest row (in position order), the change that row makes alone
   * when it is the ad's only row after `start`, else the ad's rows back to `start`.
   */
  private onColumns(
    index: FeedIndex,
    held: RowsOfPositions,
    columnar: ColumnarAds,
    query: AdChangesQuery,
    filter: { checkAt: ((p: number) => boolean) | null; candidates: Candidates | null },
    start: number,
    afterRow: number,
    page: PageRows,
  ): { matched: number; ridOf: (p: number, row: number) => number } {
    const { prev, before, after } = index;
    const { rows: rowsAt, codes: codesAt, positions, inWindow, rankBase } = held;
    const checkAt = filter.checkAt ?? (() => true);
    const wantActive = query.filter.status === undefined ? -1 : query.filter.status === 'active' ? 1 : 0;
    const countUpTo = query.countUpTo;
    const rids = columnar.cols.rid;
    const ridOf = (p: number) => rids[p] ?? 0;
    let examined = 0;
    let probed = 0;
    let matched = 0;
    /**
     * The change since `start` of the ad at position p whose latest row is `row` (>= start): the net change of its rows
     * held when they all come after `start`, the latest row's own when it alone does, else its rows back to `start`.
     * 0: none, or not of the status asked.
     */
    const codeAt = (rank: number, row: number): number => {
      const codes = codesAt[rank] ?? 0;
      if (wantActive >= 0 && codes >> 6 !== wantActive) return 0;
      if ((rowsAt[2 * rank + 1] ?? -1) >= start) return codes & 7;
      let firstRow = row;
      for (let r = prev[row] ?? -1; r >= start; r = prev[r] ?? -1) firstRow = r;
      if (firstRow === row) return (codes >> 3) & 7;
      return changeCode(before[firstRow] ?? -1, after[row] ?? 0);
    };
    /** The rank of a position with a row held. */
    const rankOf = (p: number) => (rankBase[p >>> 5] ?? 0) + bitCount((inWindow[p >>> 5] ?? 0) & ((1 << (p & 31)) - 1));
    const done = () => {
      feedReadStats.logRows += examined;
      feedReadStats.adsProbed += probed;
      return { matched, ridOf };
    };

    // An advertiser's or an affiliate's own rows after `start`, the latest first, when they are fewer than the ads it has
    // (its posting list) by CANDIDATES_PER_ROW. Every one is counted: the page is the earliest, met last.
    const ownKey = query.filter.advertiserId !== undefined ? 'advertiserId' : query.filter.webmasterId !== undefined ? 'webmasterId' : null;
    const chainRows = ownKey ? index.rowsOf[ownKey].countOf(query.filter[ownKey] ?? '') : 0;
    if (ownKey && CANDIDATES_PER_ROW * chainRows < (filter.candidates?.size ?? Infinity)) {
      const chain = index.rowsOf[ownKey];
      const links = chain.before;
      for (let row = chain.latestOf(query.filter[ownKey] ?? ''); row >= start; row = links[row] ?? -1) {
        examined++;
        const p = positions[row] ?? -1;
        if (p < 0) continue; // a later row of the same ad stands for it (or the ad is not in these columns)
        const code = codeAt(rankOf(p), row);
        if (code === 0) continue;
        probed++;
        if (!checkAt(p)) continue;
        matched++;
        if (row > afterRow) page.offer(row, p, code);
      }
      return done();
    }

    /** The log's rows after `from` in change order, until the page is full and (when `counting`) countUpTo is passed. */
    const walkLog = (from: number, counting: boolean) => {
      for (let row = from; row < index.length; row++) {
        examined++;
        const p = positions[row] ?? -1;
        if (p < 0) continue;
        const code = codeAt(rankOf(p), row);
        if (code === 0) continue;
        probed++;
        if (!checkAt(p)) continue;
        if (counting) matched++;
        if (row > afterRow) page.offer(row, p, code);
        if (page.hasMore() && (!counting || matched > countUpTo)) break;
      }
    };

    // No narrower source (no filter, or none with a posting list or words): the ads with a row held are the candidates.
    const given = filter.candidates;
    const candidates =
      given && (given.list || given.bits || given.rids)
        ? given
        : { size: held.changed.length, list: held.changed, bits: null, rids: null, besides: given?.besides ?? null };
    // A candidate costs a few reads in position order, a row of the log a few out of order: candidates unless the
    // log after `start` is much the shorter (a recent watermark).
    if (candidates.size > CANDIDATES_PER_ROW * (index.length - start)) {
      walkLog(start, true);
      return done();
    }
    // Latest positions first (the newest ads, where a day's changes gather), stopping past countUpTo as a plain
    // search's count does; the page is exact when every candidate was visited.
    const besides = candidates.besides;
    const visit = (p: number): boolean => {
      const word = inWindow[p >>> 5] ?? 0;
      const bit = 1 << (p & 31);
      if ((word & bit) === 0) return false;
      const rank = (rankBase[p >>> 5] ?? 0) + bitCount(word & (bit - 1));
      const row = rowsAt[2 * rank] ?? -1;
      if (row < start) return false;
      examined++;
      const code = codeAt(rank, row);
      if (code === 0) return false;
      probed++;
      if (besides !== null && !besides(p)) return false;
      matched++;
      if (row > afterRow) page.offer(row, p, code);
      return matched > countUpTo;
    };
    let stopped = false;
    const { list, bits, rids: candidateRids } = candidates;
    if (list) {
      // Most candidates have no row held: one bit tells, before anything else is read.
      for (let i = list.length - 1; i >= 0; i--) {
        const p = list[i] ?? 0;
        if (((inWindow[p >>> 5] ?? 0) & (1 << (p & 31))) !== 0 && visit(p)) {
          stopped = true;
          break;
        }
      }
    } else if (bits) {
      for (let w = bits.length - 1; w >= 0 && !stopped; w--) {
        let word = (bits[w] ?? 0) & (inWindow[w] ?? 0);
        while (word !== 0 && !stopped) {
          const bit = 31 - Math.clz32(word);
          word = (word ^ (1 << bit)) >>> 0;
          stopped = visit(w * 32 + bit);
        }
      }
    } else if (candidateRids) {
      for (const rid of candidateRids) {
        const p = columnar.positionOf(rid);
        if (p >= 0 && visit(p)) {
          stopped = true;
          break;
        }
      }
    }
    if (stopped) {
      // More than countUpTo: the page is the earliest rows after `after`, met first in the log.
      page.clear();
      walkLog(Math.max(start, afterRow + 1), false);
    }
    return done();
  }

  /** Without columns: the log's rows after `start` in change order, each ad checked in SQL by its row id. */
  private inSql(
    index: FeedIndex,
    columnar: ColumnarAds | null,
    query: AdChangesQuery,
    check: AdCheck | undefined,
    start: number,
    afterRow: number,
    page: PageRows,
  ): { matched: number; ridOf: (p: number, row: number) => number } {
    const { prev, before, after, next } = index;
    const wantActive = query.filter.status === undefined ? -1 : query.filter.status === 'active' ? 1 : 0;
    let matched = 0;
    let examined = 0;
    for (let row = start; row < index.length; row++) {
      examined++;
      if ((next[row] ?? -1) !== -1) continue;
      let firstRow = row;
      for (let p = prev[row] ?? -1; p >= start; p = prev[p] ?? -1) firstRow = p;
      const isNow = after[row] ?? 0;
      if (wantActive >= 0 && isNow % 2 !== wantActive) continue;
      const code = changeCode(before[firstRow] ?? -1, isNow);
      if (code === 0) continue;
      if (check && !check(this.ridAt(index, row, columnar))) continue;
      matched++;
      if (row > afterRow) page.offer(row, row, code);
      if (page.hasMore() && matched > query.countUpTo) break;
    }
    feedReadStats.logRows += examined;
    // Rows stand for their ads here: the row id is looked up for the page's rows only.
    return { matched, ridOf: (_p, row) => this.ridAt(index, row, columnar) };
  }

  /**
   * The log in memory, covering every batch after `sinceSeq` and read forward to this snapshot: reaching back to an
   * older watermark reads only the rows before those held; rows no watermark asked for in the last period or two of
   * `heldMs` (or expired) are let go. Read anew for another store.
   */
  private current(position: ChangePosition, sinceSeq: number, feedFrom: number): FeedIndex {
    const now = this.now();
    const use = this.use;
    let index = this.index && this.index.store === position.store ? this.index : null;
    if (now - use.started >= this.heldMs) {
      use.before = use.oldest;
      use.oldest = Infinity;
      use.started = now;
      const keepAfter = Math.max(feedFrom, Math.min(use.before, sinceSeq));
      if (index && keepAfter > index.coveredSeq && Number.isFinite(keepAfter)) index = index.dropThrough(Math.min(keepAfter, position.seq));
    }
    use.oldest = Math.min(use.oldest, sinceSeq);
    if (index && index.readTo === position.seq && sinceSeq >= index.coveredSeq) return (this.index = index);
    const bounds = this.sql('SELECT (SELECT min(n) FROM ad_feed) AS first, (SELECT max(n) FROM ad_feed) AS last').get() as {
      first: number | null;
      last: number | null;
    };
    const first = bounds.first ?? 1;
    const last = bounds.last ?? 0;
    const firstOf = (seq: number) => Math.max(first, firstRowAfter(this.sql(SEQ_AT), first, last, seq));
    if (index && sinceSeq < index.coveredSeq) {
      const older = new FeedIndex(position.store, firstOf(sinceSeq), sinceSeq);
      index = older.load(this.sql(LOAD_ROWS), index.first) ? index.prepend(older) : null;
    }
    if (index && !index.load(this.sql(LOAD_ROWS), last + 1)) index = null;
    if (!index) {
      index = new FeedIndex(position.store, firstOf(sinceSeq), sinceSeq);
      if (!index.load(this.sql(LOAD_ROWS), last + 1)) throw new Error('the change log changed while it was read');
    }
    index.readTo = position.seq;
    this.index = index;
    return index;
  }

  /**
   * Per position of these columns, the latest log row of the ad there (-1: none): built from the rows held (each ad's
   * latest row, placed by its row id) for a new layout of the columns or a new window of the log, else brought forward
   * with the rows read since (carried), so a filter's candidates find their rows in position order rather than by row
   * id all over memory.
   */
  private rowsByPosition(state: ColumnsState, index: FeedIndex): RowsOfPositions {
    const { columnar, layout } = state;
    const last = this.held;
    // Same layout: every position the arrays know holds the same ad in these columns (a tail batch appends new ads).
    const follows = last !== null && last.index === index && last.layout === layout && last.n <= columnar.cols.n;
    let held: RowsOfPositions;
    if (follows && last.upTo === index.length && last.n === columnar.cols.n) held = last;
    else if (follows) held = this.carried(last, columnar, index);
    else {
      const started = process.threadCpuUsage();
      const words = (columnar.cols.n + 31) >>> 5;
      const { next, rid, prev, before, after } = index;
      const positions = new Int32Array(index.prev.length).fill(-1);
      const inWindow = new Uint32Array(words);
      for (let row = 0; row < index.length; row++) {
        if ((next[row] ?? -1) !== -1) continue;
        let p = columnar.positionOf(rid[row] ?? 0);
        if (p < 0) p = columnar.positionOf(this.ridAt(index, row, columnar));
        if (p < 0) continue;
        positions[row] = p;
        inWindow[p >>> 5] = (inWindow[p >>> 5] ?? 0) | (1 << (p & 31));
      }
      const rankBase = new Int32Array(words);
      let count = 0;
      for (let w = 0; w < words; w++) {
        rankBase[w] = count;
        count += bitCount(inWindow[w] ?? 0);
      }
      const changed = new Int32Array(count);
      const rows = new Int32Array(2 * count);
      const codes = new Uint8Array(count);
      for (let row = 0; row < index.length; row++) {
        const p = positions[row] ?? -1;
        if (p < 0) continue;
        const word = inWindow[p >>> 5] ?? 0;
        const rank = (rankBase[p >>> 5] ?? 0) + bitCount(word & ((1 << (p & 31)) - 1));
        let first = row;
        for (let r = prev[row] ?? -1; r >= 0; r = prev[r] ?? -1) first = r;
        const isNow = after[row] ?? 0;
        changed[rank] = p;
        rows[2 * rank] = row;
        rows[2 * rank + 1] = first;
        codes[rank] = changeCode(before[first] ?? -1, isNow) | (changeCode(before[row] ?? -1, isNow) << 3) | (isNow % 2 === 1 ? 64 : 0);
      }
      held = { index, upTo: index.length, layout, n: columnar.cols.n, inWindow, rankBase, changed, rows, codes, positions };
      const spent = process.threadCpuUsage(started);
      feedReadStats.lastBuildMs = (spent.user + spent.system) / 1000;
      feedReadStats.builds++;
    }
    this.held = held;
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

  /**
   * `held` brought forward to columns of the same layout (as long or longer) and the rows read since it was built: each
   * new row takes over its ad's position from the ad's previous row (same layout, same position), or finds it by row
   * id; the ranks are merged again only when an ad came into the window; the ads whose latest row is new get their
   * rows and codes as a build gives them. Work in proportion to the new rows, plus a pass over the bitset and the ranks
   * when ads came in: not a pass over every row held with a row id looked up for each.
   */
  private carried(held: RowsOfPositions, columnar: ColumnarAds, index: FeedIndex): RowsOfPositions {
    const started = process.threadCpuUsage();
    const n = columnar.cols.n;
    const words = (n + 31) >>> 5;
    const { rid, prev, before, after } = index;
    let positions = held.positions;
    if (positions.length < index.prev.length) {
      positions = new Int32Array(index.prev.length).fill(-1);
      positions.set(held.positions);
    }
    const inWindow = new Uint32Array(words);
    inWindow.set(held.inWindow);
    /** Pairs (position, row): the ads whose latest row is new, in row order (an ad's later row comes later). */
    const touched: number[] = [];
    /** The first position that came into the window (ranks before it stay): new ads of a tail come after every other. */
    let lowest = n;
    for (let row = held.upTo; row < index.length; row++) {
      const previous = prev[row] ?? -1;
      let p = previous >= 0 ? (positions[previous] ?? -1) : -1;
      if (previous >= 0) positions[previous] = -1;
      if (p < 0) p = columnar.positionOf(rid[row] ?? 0);
      if (p < 0) p = columnar.positionOf(this.ridAt(index, row, columnar));
      if (p < 0) continue;
      positions[row] = p;
      const word = inWindow[p >>> 5] ?? 0;
      if ((word & (1 << (p & 31))) === 0 && p < lowest) lowest = p;
      inWindow[p >>> 5] = word | (1 << (p & 31));
      touched.push(p, row);
    }
    // The words before the first that changed keep their ranks.
    const from = Math.min(lowest >>> 5, held.rankBase.length);
    const rankBase = new Int32Array(words);
    rankBase.set(held.rankBase.subarray(0, from));
    let count = from < held.rankBase.length ? (held.rankBase[from] ?? 0) : held.changed.length;
    const kept = count;
    for (let w = from; w < words; w++) {
      rankBase[w] = count;
      count += bitCount(inWindow[w] ?? 0);
    }
    let { changed, rows, codes } = held;
    if (count !== changed.length) {
      // Ads came into the window: the ranks after the first of them move. The ads held keep their rows and codes.
      changed = new Int32Array(count);
      rows = new Int32Array(2 * count);
      codes = new Uint8Array(count);
      changed.set(held.changed.subarray(0, kept));
      rows.set(held.rows.subarray(0, 2 * kept));
      codes.set(held.codes.subarray(0, kept));
      let old = kept;
      let rank = kept;
      for (let w = from; w < words; w++) {
        let word = inWindow[w] ?? 0;
        const was = held.inWindow[w] ?? 0;
        while (word !== 0) {
          const bit = word & -word;
          word ^= bit;
          changed[rank] = w * 32 + (31 - Math.clz32(bit));
          if ((was & bit) !== 0) {
            rows[2 * rank] = held.rows[2 * old] ?? -1;
            rows[2 * rank + 1] = held.rows[2 * old + 1] ?? -1;
            codes[rank] = held.codes[old] ?? 0;
            old++;
          }
          rank++;
        }
      }
    }
    for (let t = 0; t < touched.length; t += 2) {
      const p = touched[t] ?? 0;
      const row = touched[t + 1] ?? 0;
      const rank = (rankBase[p >>> 5] ?? 0) + bitCount((inWindow[p >>> 5] ?? 0) & ((1 << (p & 31)) - 1));
      let first = row;
      for (let r = prev[row] ?? -1; r >= 0; r = prev[r] ?? -1) first = r;
      const isNow = after[row] ?? 0;
      rows[2 * rank] = row;
      rows[2 * rank + 1] = first;
      codes[rank] = changeCode(before[first] ?? -1, isNow) | (changeCode(before[row] ?? -1, isNow) << 3) | (isNow % 2 === 1 ? 64 : 0);
    }
    const spent = process.threadCpuUsage(started);
    feedReadStats.lastBuildMs = (spent.user + spent.system) / 1000;
    feedReadStats.carried++;
    return { index, upTo: index.length, layout: held.layout, n, inWindow, rankBase, changed, rows, codes, positions };
  }

  /** The ad's row id now: looked up again when a batch replaced its row since the log was read. */
  private ridAt(index: FeedIndex, row: number, columnar: ColumnarAds | null): number {
    const held = index.rid[row] ?? 0;
    if (held > 0 && (columnar ? columnar.positionOf(held) >= 0 : true)) return held;
    const found = this.sql('SELECT a.rid AS rid FROM ad_feed f JOIN ads a ON a.id = f.id WHERE f.n = ?').get(index.first + row) as { rid: number } | undefined;
    const rid = found?.rid ?? 0;
    index.rid[row] = rid;
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
    const columnar = state?.columnar;
    if (!wanted?.length && !Object.keys(rest).length) return { check: undefined, checkAt: columnar ? () => true : null, candidates: null };
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
    const none = { list: null, bits: null, rids: null };
    let inWords: ((p: number) => boolean) | null = null;
    if (wanted?.length) {
      const each = wanted.map((w) => state.wordBits.get(w));
      if (each.every((b) => b !== undefined)) {
        const [first, ...more] = each as Uint32Array[];
        const bits = first ? first.slice() : new Uint32Array(0);
        for (const other of more) for (let i = 0; i < bits.length; i++) bits[i] = (bits[i] ?? 0) & (other[i] ?? 0);
        const has = (p: number) => ((bits[p >>> 5] ?? 0) & (1 << (p & 31))) !== 0;
        inWords = has;
        sources.push({ ...none, size: popcount(bits), bits, besides: others ? matches : null });
        if (postings) sources.push({ ...none, size: postings.length, list: postings, besides: besides ? (p) => besides(p) && has(p) : has });
      } else {
        const statement = this.db.prepare('SELECT rowid FROM ads_fts WHERE ads_fts MATCH ?');
        const found = new Set((statement.all(ftsQuery(wanted)) as { rowid: number }[]).map((r) => r.rowid));
        const rids = columnar.cols.rid;
        const has = (p: number) => found.has(rids[p] ?? 0);
        inWords = has;
        sources.push({ ...none, size: found.size, rids: found, besides: others ? matches : null });
        if (postings) sources.push({ ...none, size: postings.length, list: postings, besides: (p) => (!besides || besides(p)) && has(p) });
      }
    } else if (postings) {
      sources.push({ ...none, size: postings.length, list: postings, besides });
    }
    const inWordsNow = inWords;
    const checkAt = inWordsNow ? (p: number) => matches(p) && inWordsNow(p) : matches;
    const check = (rid: number) => {
      const p = columnar.positionOf(rid);
      return p >= 0 && checkAt(p);
    };
    const candidates = sources.reduce<Candidates | null>((best, c) => (!best || c.size < best.size ? c : best), null);
    // No source narrower than every ad: every ad is a candidate (onColumns visits those with rows), checked by the
    // whole filter.
    return { check, checkAt, candidates: candidates ?? { ...none, size: columnar.cols.n, besides: matches } };
  }

  private sql(text: string): StatementSync {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** Whether the store has a log of this layout (once it has, it keeps it: the writer only drops an older layout). */
  private hasLog(): boolean {
    this.logExists ||= this.sql("SELECT 1 FROM pragma_table_info('ad_feed') WHERE name = 'prev'").get() !== undefined;
    return this.logExists;
  }

  /** The ads' docs by row id, parsed, with the moving values of their rows (moving-values.ts). */
  private docsOf(rids: number[]): Map<number, Ad & { media?: unknown }> {
    if (!rids.length) return new Map();
    const rows = this.sql(`SELECT d.rid, d.doc, ${MOVING_COLUMNS} FROM ad_docs d JOIN ads a ON a.rid = d.rid WHERE d.rid IN (${rids.map(() => '?').join(',')})`).all(
      ...rids,
    ) as unknown as (MovingRow & { rid: number; doc: string })[];
    return new Map(rows.map((r) => [r.rid, withMoving(JSON.parse(r.doc) as Ad & { media?: unknown }, r)]));
  }
}

/** Checks one ad, by its row id, against the filter. */
type AdCheck = (rid: number) => boolean;

/**
 * Ads that hold every match of a filter, as one of: positions ascending (a posting list), a bitset over positions (the
 * words), row ids (the text index), or every position (all null); how many; and what a candidate must still pass
 * (null: nothing, every candidate matches).
 */
interface Candidates {
  size: number;
  list: Int32Array | null;
  bits: Uint32Array | null;
  rids: Set<number> | null;
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
