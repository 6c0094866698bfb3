import type { StatementSync } from 'node:sqlite';

/**
 * The change log (change-log.ts, ad_feed) of one store held in memory by a reader (change-feed-reader.ts): the rows from
 * the oldest watermark asked for lately to the newest batch, as typed arrays in change order (row i is ad_feed's
 * n = first + i). Per row: the same ad's rows before and after it, its states before and after, the ad's row id when it
 * was read; per batch (a run of rows of one seq and one time): its seq, first row and time. 28 bytes a row, plus
 * 8 once the rows are filed per advertiser and affiliate (RowChains), plus the reader's 4 of its position
 * (RowsOfPositions).
 */

/**
 * A visible state as a number: 48 bits of its digest, then its status in the lowest bit (1: active); -1 for none.
 * Two states with the same number are taken as equal: a change whose digest agrees with the state before it in its
 * first 48 bits is missed (about one change in 3e14). The digest's first 8 base64url characters are its first 48 bits.
 */
export function stateKey(state: string | null): number {
  if (state === null) return -1;
  const colon = state.indexOf(':');
  let digest = 0;
  for (let i = colon + 1; i < colon + 9; i++) digest = digest * 64 + base64urlValue(state.charCodeAt(i));
  return digest * 2 + (state.startsWith('active:') ? 1 : 0);
}

function base64urlValue(code: number): number {
  if (code >= 65 && code <= 90) return code - 65; // A-Z
  if (code >= 97 && code <= 122) return code - 71; // a-z: 26..51
  if (code >= 48 && code <= 57) return code + 4; // 0-9: 52..61
  return code === 45 ? 62 : 63; // '-', '_'
}

/** A row's `prev` naming no row (the ad's first logged change). Rows before the window have negative indexes too. */
export const NO_ROW = -0x80000000;

/** A log row as LOAD_ROWS reads it, as an array (no object per row: a day at 1M is 230 k of them). */
type LogRow = [n: number, seq: number, prev: number | null, before: string | null, after: string, at: string, rid: number | null];

/** The log's rows from a number up to another (excluded), each with the ad's row id now. */
export const LOAD_ROWS = `SELECT f.n AS n, f.seq AS seq, f.prev AS prev, f.before AS before, f.after AS after, f.at AS at, a.rid AS rid
  FROM ad_feed f LEFT JOIN ads a ON a.id = f.id WHERE f.n >= ? AND f.n < ? ORDER BY f.n`;

/** Room for `size` values, keeping `values` (grown by an eighth at least when it is appended to, not doubled). */
function grown<T extends Int32Array | Float64Array>(values: T, size: number, make: (n: number) => T): T {
  if (size <= values.length) return values;
  const next = make(Math.max(size, values.length + (values.length >>> 3), 1024));
  next.set(values);
  return next;
}

const int32 = (n: number) => new Int32Array(n);
const float64 = (n: number) => new Float64Array(n);

export class FeedIndex {
  length = 0;
  /** The same ad's previous row (negative: none in the window; NO_ROW: none at all). */
  prev = new Int32Array(0);
  /** The same ad's next row (-1: this is its latest). */
  next = new Int32Array(0);
  before = new Float64Array(0);
  after = new Float64Array(0);
  /** The ad's row id when the row was read (a batch that replaces the ad's row logs a row with the new one). */
  rid = new Int32Array(0);
  batches = 0;
  batchSeq = new Float64Array(0);
  batchStart = new Int32Array(0);
  batchAt = new Float64Array(0);
  private lastAtText = '';
  /**
   * Per advertiser and per affiliate, the rows of their ads as a chain from the latest back (each row filed under
   * the ad's value when it was filed, with the columns of that time: a row that changes who runs the ad is filed under
   * the new one), so a feed on one of them visits its own rows after the watermark, not every ad it has nor the whole
   * log. Rows < `filedUpTo` are filed.
   */
  readonly rowsOf = { advertiserId: new RowChains(), webmasterId: new RowChains() };
  filedUpTo = 0;
  /** The store's position (seq) the log was read up to. */
  readTo = -1;

  constructor(
    readonly store: string,
    /** ad_feed's n of row 0: the first row of the first batch after `coveredSeq`. */
    readonly first: number,
    /** Every row of a batch after this seq is held (the oldest watermark the index answers). */
    readonly coveredSeq: number,
  ) {}

  /** The rows numbered `from` up to `to` (excluded), appended; false when the log has a gap (it is not the one held). */
  load(statement: StatementSync, to: number): boolean {
    const from = this.first + this.length;
    if (to <= from) return true;
    this.reserve(this.length + (to - from));
    statement.setReturnArrays(true);
    for (const row of statement.iterate(from, to) as unknown as Iterable<LogRow>) if (!this.append(row)) return false;
    return this.first + this.length === to;
  }

  private reserve(size: number): void {
    this.prev = grown(this.prev, size, int32);
    this.next = grown(this.next, size, int32);
    this.before = grown(this.before, size, float64);
    this.after = grown(this.after, size, float64);
    this.rid = grown(this.rid, size, int32);
  }

  private append([n, seq, prevN, beforeState, afterState, at, rid]: LogRow): boolean {
    const i = this.length;
    if (n !== this.first + i) return false;
    const prev = prevN === null ? NO_ROW : prevN - this.first;
    this.prev[i] = prev;
    this.next[i] = -1;
    this.before[i] = stateKey(beforeState);
    this.after[i] = stateKey(afterState);
    this.rid[i] = rid ?? 0;
    if (prev >= 0) this.next[prev] = i;
    const last = this.batches - 1;
    if (last < 0 || this.batchSeq[last] !== seq || at !== this.lastAtText) this.addBatch(seq, i, Date.parse(at));
    this.lastAtText = at;
    this.length++;
    return true;
  }

  private addBatch(seq: number, start: number, at: number): void {
    const k = this.batches;
    this.batchSeq = grown(this.batchSeq, k + 1, float64);
    this.batchStart = grown(this.batchStart, k + 1, int32);
    this.batchAt = grown(this.batchAt, k + 1, float64);
    this.batchSeq[k] = seq;
    this.batchStart[k] = start;
    this.batchAt[k] = at;
    this.batches++;
  }

  /** The first row of a batch after `seq` (the length when none is). */
  firstAfter(seq: number): number {
    const k = this.batchAfter(seq);
    return k < this.batches ? (this.batchStart[k] ?? this.length) : this.length;
  }

  /** The first batch after `seq`. */
  private batchAfter(seq: number): number {
    return firstAbove(this.batchSeq, this.batches, seq);
  }

  /** When the row's batch was written (ms). */
  atOf(row: number): number {
    return this.batchAt[firstAbove(this.batchStart, this.batches, row) - 1] ?? 0;
  }

  /** The seq of the newest batch held (`coveredSeq` when none is). */
  lastSeq(): number {
    return this.batches > 0 ? (this.batchSeq[this.batches - 1] ?? this.coveredSeq) : this.coveredSeq;
  }

  /** Bytes held, the row chains included (the reader's per-position arrays are not). */
  bytes(): number {
    const arrays = [this.prev, this.next, this.before, this.after, this.rid, this.batchSeq, this.batchStart, this.batchAt];
    return arrays.reduce((sum, a) => sum + a.byteLength, 0) + this.rowsOf.advertiserId.bytes() + this.rowsOf.webmasterId.bytes();
  }

  /**
   * This index with the rows of the batches after `seq` and up to its first put before it (`older` holds just those,
   * read from the log): the window reaches back to an older watermark without reading again the rows held.
   */
  prepend(older: FeedIndex): FeedIndex {
    const k = older.length;
    const joined = new FeedIndex(this.store, older.first, older.coveredSeq);
    joined.reserve(k + this.length);
    joined.prev.set(older.prev.subarray(0, k));
    joined.next.set(older.next.subarray(0, k));
    joined.before.set(older.before.subarray(0, k));
    joined.after.set(older.after.subarray(0, k));
    joined.rid.set(older.rid.subarray(0, k));
    for (let i = 0; i < this.length; i++) {
      const prev = this.prev[i] ?? NO_ROW;
      // A row's prev was held relative to this index's first row: before it (negative), it may now be in the window.
      const shifted = prev === NO_ROW ? NO_ROW : prev + k;
      joined.prev[k + i] = shifted;
      const next = this.next[i] ?? -1;
      joined.next[k + i] = next < 0 ? -1 : next + k;
      if (shifted >= 0 && shifted < k) joined.next[shifted] = k + i;
    }
    joined.before.set(this.before.subarray(0, this.length), k);
    joined.after.set(this.after.subarray(0, this.length), k);
    joined.rid.set(this.rid.subarray(0, this.length), k);
    joined.length = k + this.length;
    for (const part of [older, this]) {
      const offset = part === older ? 0 : k;
      for (let b = 0; b < part.batches; b++) joined.addBatch(part.batchSeq[b] ?? 0, (part.batchStart[b] ?? 0) + offset, part.batchAt[b] ?? 0);
    }
    joined.lastAtText = this.lastAtText;
    return joined;
  }

  /** This index without the batches up to `seq` (whose watermarks no longer come): the window follows use. */
  dropThrough(seq: number): FeedIndex {
    const k = this.firstAfter(seq);
    const kept = new FeedIndex(this.store, this.first + k, seq);
    const rows = this.length - k;
    kept.reserve(rows);
    for (let i = 0; i < rows; i++) {
      const prev = this.prev[k + i] ?? NO_ROW;
      kept.prev[i] = prev === NO_ROW ? NO_ROW : prev - k;
      const next = this.next[k + i] ?? -1;
      kept.next[i] = next < 0 ? -1 : next - k;
    }
    kept.before.set(this.before.subarray(k, this.length));
    kept.after.set(this.after.subarray(k, this.length));
    kept.rid.set(this.rid.subarray(k, this.length));
    kept.length = rows;
    for (let b = this.batchAfter(seq); b < this.batches; b++) kept.addBatch(this.batchSeq[b] ?? 0, (this.batchStart[b] ?? 0) - k, this.batchAt[b] ?? 0);
    kept.lastAtText = this.lastAtText;
    return kept;
  }
}

/** Rows filed under values, each value's rows chained from its latest back. */
export class RowChains {
  private readonly latest = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  /** Per row, the previous row filed under the same value (-1: none). */
  before = new Int32Array(0);

  file(value: string | undefined, row: number): void {
    if (value === undefined) return;
    if (row >= this.before.length) this.before = grown(this.before, row + 1, int32);
    this.before[row] = this.latest.get(value) ?? -1;
    this.latest.set(value, row);
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }

  /** How many rows are filed under `value`. */
  countOf(value: string): number {
    return this.counts.get(value) ?? 0;
  }

  /** The latest row filed under `value` (-1: none). */
  latestOf(value: string): number {
    return this.latest.get(value) ?? -1;
  }

  bytes(): number {
    return this.before.byteLength;
  }
}

/**
 * The first row (its n) of a batch after `seq`, found by bisecting the log on n (its primary key; seq grows with n),
 * or one past the last row when there is none.
 */
export function firstRowAfter(seqAt: StatementSync, first: number, last: number, seq: number): number {
  let lo = first;
  let hi = last + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = seqAt.get(mid) as { seq: number } | undefined;
    if (row !== undefined && row.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The seq of the first row numbered `n` or after (firstRowAfter's probe). */
export const SEQ_AT = 'SELECT seq FROM ad_feed WHERE n >= ? ORDER BY n LIMIT 1';

/** The first of the first `n` values (ascending) that is above `x`, or `n` when none is (a binary search). */
function firstAbove(values: Float64Array | Int32Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
