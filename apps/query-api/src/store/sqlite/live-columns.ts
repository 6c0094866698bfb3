import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AppStore, CreativeFormat } from '@adintel/contracts';
import { dayNumber, words } from '../text';
import { type AdColumns, decodeAdColumns, destinationCode, WORD_BITS_PREFIX } from './ad-columns';
import { type ColumnIndexes, ColumnarAds, type Grouped, lowerBound } from './columnar-search';
import { addToGrouped, relaidByRank } from './grouped-tail';
import { MOVING_COLUMNS, MovingBuffers, WordBitsBuffers } from './moving-buffers';
import { inRankOrder, rankGap, ranksBetween, respread, spreadRank } from './id-ranks';
import { MOVING_SORTS, patchOrder } from './sort-orders';
import { type Alloc, at, localAlloc, type TypedArray, type TypedArrayOf } from './typed-alloc';
import { copyBits, wordBitsIn } from './word-bits';
import { AD_ROW_COLUMNS, type AdRow } from './rollups';
import { ADDED, REMOVED, UPDATED } from './schema';

/** The columns a reader answers from, with the word bitsets over the same positions. */
export interface ColumnsState {
  columnar: ColumnarAds;
  /** Word -> one bit per position, for the words given a bitset at the last full build (writeWordBits). */
  wordBits: { get(word: string): Uint32Array | undefined };
  /**
   * Names the load or merge these columns' positions come from: a forward by the tail path keeps it (every stored ad
   * keeps its position, new ones follow), a load or a merge takes a new one. Two versions with the same layout hold
   * the same ads at the positions both have, so a reader may bring what it keeps per position forward (the change
   * feed, change-feed-reader.ts) instead of building it again.
   */
  readonly layout: string;
}

/** The columns as this connection derives them: every word bitset is a view into one buffer, in the same order. */
export interface LiveState extends ColumnsState {
  wordBits: Map<string, Uint32Array>;
  /** Words of 32 bits from one word's bitset to the next's in the buffer (at least a bitset's length: room to grow). */
  wordStride: number;
}

/** A label a live batch changed (names follow the entity records): its dictionary and code. */
export interface Relabel {
  dict: 'advertiserNames' | 'webmasterNames' | 'apps' | 'creativeTitles' | 'creativeFormats';
  code: number;
}

interface Versioned extends LiveState {
  /** meta.columns_base of the full build these descend from, and the live batch they are current to. */
  base: string;
  seq: number;
}

/** An ad a live batch added or changed in place, as the columns take it. */
interface AddedAd {
  row: AdRow;
  first: number;
  /** Rank among every id (the tiebreaker of every sort: id-ranks.ts), assigned while merging. */
  rank: number;
  /** The merge's: position of the nearest older row with a smaller id (-1: none), where the id falls in the id order. */
  anchor: number;
  words: Set<string>;
}

/** The text an ad's words come from. */
type AdText = { title: string; body: string; landing_url: string };

/**
 * A row of the batch being applied, as stored (the values `AD_ROW_COLUMNS` would read back), with its text: the live
 * writer hands its batch's rows to the forward pass instead of reading them back.
 */
export interface KnownRow {
  row: AdRow;
  text: AdText;
}

/** The dictionary code of a value (-1: none), in the dictionaries a batch's columns are built with. */
type CodeOf = (dict: 'platforms' | 'advertiserIds' | 'webmasterIds' | 'appIds' | 'creativeIds', value: string | null) => number;

/** The per-ad columns whose value for an ad comes from its row alone (idRank and host depend on the other ads). */
type ValueColumn = 'rid' | 'activity' | 'popularity' | 'impressions' | 'first' | 'last' | 'platform' | 'active' | 'destination' | 'advertiser' | 'webmaster' | 'app' | 'creative';

/**
 * Each such column: its array type and its value for an ad a batch brings. The merge and the tail build every column
 * from it (a stored ad's value changes in place in the moving columns only: MOVING_COLUMNS).
 */
function valueColumns(code: CodeOf): { [K in ValueColumn]: { make: TypedArrayOf<AdColumns[K]>; valueOf: (ad: AddedAd) => number } } {
  return {
    rid: { make: Int32Array, valueOf: (ad) => ad.row.rid },
    activity: { make: Int32Array, valueOf: (ad) => ad.row.activity_days },
    popularity: { make: Float64Array, valueOf: (ad) => ad.row.popularity },
    impressions: { make: Float64Array, valueOf: (ad) => ad.row.impressions },
    first: { make: Int32Array, valueOf: (ad) => ad.first },
    last: { make: Int32Array, valueOf: (ad) => dayNumber(ad.row.last_seen) },
    platform: { make: Uint8Array, valueOf: (ad) => code('platforms', ad.row.platform) },
    active: { make: Uint8Array, valueOf: (ad) => (ad.row.status === 'active' ? 1 : 0) },
    destination: { make: Uint8Array, valueOf: (ad) => destinationCode(ad.row.destination) },
    advertiser: { make: Int32Array, valueOf: (ad) => code('advertiserIds', ad.row.advertiser_id) },
    webmaster: { make: Int32Array, valueOf: (ad) => code('webmasterIds', ad.row.webmaster_id) },
    app: { make: Int32Array, valueOf: (ad) => (ad.row.app_doc ? code('appIds', ad.row.app_id) : -1) },
    creative: { make: Int32Array, valueOf: (ad) => code('creativeIds', ad.row.creative_id) },
  };
}

/** Builds each value column with `build` (the merge's or the tail's). */
function eachValueColumn(
  code: CodeOf,
  build: <K extends ValueColumn>(name: K, column: { make: TypedArrayOf<AdColumns[K]>; moves: boolean; valueOf: (ad: AddedAd) => number }) => AdColumns[K],
): Pick<AdColumns, ValueColumn> {
  const columns = valueColumns(code);
  const moves = (name: ValueColumn) => (MOVING_COLUMNS as readonly ValueColumn[]).includes(name);
  // One entry per key of the mapped type: the compiler cannot follow a key through Object.keys, so the result is asserted.
  return Object.fromEntries((Object.keys(columns) as ValueColumn[]).map((name) => [name, build(name, { ...columns[name], moves: moves(name) })])) as Pick<
    AdColumns,
    ValueColumn
  >;
}

/** Up to this many row ids per `rid IN (...)` (SQLite's default limit on bound parameters is 32,766). */
const CHUNK = 500;

/**
 * A reader's ad columns, kept current with the live batches. The stored columns (`trend_columns`) are as of
 * `meta.columns_seq`; each live batch after it logged the rows it removed, added and changed in place (`live_changes`).
 * On a read, the columns are brought forward over the batches they have not seen: removed positions drop out, added
 * ads are merged in at their (first_seen, id) place (or, new ads of the newest day, appended as a tail: ADR 0018),
 * changed ones take their new values where they stand,
 * dictionaries grow, word bitsets follow. The work is a few linear passes over
 * typed arrays plus the batch's own rows: no SQL scan of the store. Call inside a read transaction, so the columns
 * and every other read of the call see the same batches.
 */
export class LiveColumns {
  private state: Versioned | null = null;
  private readonly s: ReturnType<typeof prepare>;
  /** The rows of the batch being applied, as the writer holds them (current(known)). */
  private known: ReadonlyMap<number, KnownRow> | null = null;
  /** The entity records the batch being applied rendered, as the writer holds them (current(known, records)). */
  private records: EntityRows | null = null;
  /** Labels changed since takeRelabels() was last called. */
  private relabels: Relabel[] = [];
  /** Loads and forwards done so far: the work a reader that takes published columns does not do (tests read it). */
  derivations = 0;
  /** Forwards that took the tail path (appended), not the merge: tests and the benchmark read it. */
  tailForwards = 0;

  /**
   * The live writer's moving columns and word bitsets, in buffers used again once no reader can be on their version
   * (null: copies).
   */
  readonly movingBuffers: MovingBuffers | null;
  private readonly wordBitsBuffers: WordBitsBuffers | null;

  /**
   * `alloc`: where the columns live (the live writer's in shared memory, to publish them: shared-columns.ts);
   * `oldestRead`: the oldest version a reader of the published columns may be reading (the live writer's: its buffers
   * of older versions are used again).
   */
  constructor(
    private readonly db: DatabaseSync,
    private readonly alloc: Alloc = localAlloc,
    oldestRead: (() => number) | null = null,
  ) {
    this.s = prepare(db);
    this.movingBuffers = oldestRead ? new MovingBuffers(alloc, oldestRead) : null;
    this.wordBitsBuffers = oldestRead ? new WordBitsBuffers(alloc, oldestRead) : null;
  }

  /** The state to go back to when the transaction a forward read in is rolled back (restore). */
  saved(): unknown {
    return this.state;
  }

  restore(saved: unknown): void {
    this.state = saved as Versioned | null;
    this.relabels = [];
  }

  /** The labels forwards changed since the last call. */
  takeRelabels(): Relabel[] {
    const taken = this.relabels;
    this.relabels = [];
    return taken;
  }

  /**
   * The columns as of the last live batch. Loaded from the stored columns when there are none yet, when a full build
   * replaced them (a new base), or when a checkpoint deleted changes these have not seen; else brought forward.
   */
  current(known: ReadonlyMap<number, KnownRow> | null = null, records: EntityRows | null = null): (LiveState & { base: string; seq: number }) | null {
    this.known = known;
    this.records = records;
    try {
      return this.currentState();
    } finally {
      this.known = null;
      this.records = null;
    }
  }

  private currentState(): (LiveState & { base: string; seq: number }) | null {
    const meta = new Map((this.s.meta.all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const base = meta.get('columns_base');
    if (base === undefined) return null;
    const stored = Number(meta.get('columns_seq') ?? '0');
    const seq = Number(meta.get('seq') ?? '0');
    if (this.state?.base !== base || this.state.seq < stored || this.state.seq > seq) {
      this.derivations++;
      this.movingBuffers?.reset();
      this.wordBitsBuffers?.reset();
      const loaded = this.load();
      if (!loaded) return null;
      this.state = { ...loaded, base, seq: stored };
    }
    if (this.state.seq < seq) {
      this.derivations++;
      this.state = { ...this.forward(this.state, seq), base, seq };
    }
    return this.state;
  }

  /** The stored columns and every word bitset. */
  private load(): LiveState | null {
    const blobs = new Map<string, Uint8Array>();
    const words = new Map<string, Uint8Array>();
    for (const row of this.s.blobs.iterate() as Iterable<{ name: string; data: Uint8Array }>) {
      if (row.name.startsWith(WORD_BITS_PREFIX)) words.set(row.name.slice(WORD_BITS_PREFIX.length), row.data);
      else blobs.set(row.name, row.data);
    }
    const cols = decodeAdColumns(blobs, this.alloc);
    if (!cols) return null;
    const stride = (cols.n + 31) >>> 5;
    const names = [...words.keys()];
    const wordBits = wordBitsIn(this.alloc(Uint32Array, stride * names.length), names, stride);
    for (const [word, data] of words) {
      const bits = new Uint32Array(data.slice().buffer); // a copy: the blob's bytes need not be 4-byte aligned
      wordBits.get(word)?.set(bits.subarray(0, stride));
    }
    return { columnar: new ColumnarAds(cols, undefined, { alloc: this.alloc }), wordBits, wordStride: stride, layout: randomUUID() };
  }

  /** The batch a forward is bringing the columns to (the writer's records are of that batch alone). */
  private forwardingTo = 0;

  /** The columns after the live batches in (state.seq, seq]. */
  private forward(state: Versioned, seq: number): LiveState {
    this.forwardingTo = seq;
    const old = state.columnar;
    const cols = old.cols;
    const changes = this.s.changes.all(state.seq, seq) as { rid: number; change: number }[];
    const removed = new Uint8Array(cols.n);
    let removedCount = 0;
    const addedRids: number[] = [];
    const updatedRids = new Set<number>();
    for (const { rid, change } of changes) {
      if (change === ADDED) addedRids.push(rid);
      else if (change === UPDATED) updatedRids.add(rid);
      else if (change === REMOVED) {
        // A row added and removed again within these batches was never in the columns.
        const p = old.positionOf(rid);
        if (p >= 0 && !removed[p]) {
          removed[p] = 1;
          removedCount++;
        }
      }
    }
    const added = this.rowsOf(addedRids, true);
    // Rows changed in place keep their position and rank (rows added in these batches are read whole above).
    const updated = this.rowsOf(
      [...updatedRids].filter((rid) => old.positionOf(rid) >= 0 && !removed[old.positionOf(rid)]),
      false,
    );
    if (removedCount === 0) {
      const appended = this.appended(state, added, updated);
      if (appended) {
        this.tailForwards++;
        return appended;
      }
    }
    this.movingBuffers?.reset();
    this.wordBitsBuffers?.reset();
    const rankOf = this.rankIds(old, removed, added);
    added.sort((a, b) => a.first - b.first || a.rank - b.rank);
    const updatedAt = new Int32Array(cols.n).fill(-1);
    updated.forEach((ad, i) => {
      const p = old.positionOf(ad.row.rid);
      updatedAt[p] = i;
      ad.rank = at(rankOf, p);
    });

    // The new order: surviving positions in (first, id) order (as they stand up to cols.sorted; a live tail's after it
    // sorted here) merged with the added ads, every position in (first, id) order again. Surviving positions come in
    // runs that move by one offset (copied whole below); added and updated ads are single slots.
    const n = cols.n - removedCount + added.length;
    const oldOrder = cols.sorted < cols.n ? inIdOrder(cols, rankOf) : null;
    const oldAt = oldOrder ? (i: number) => at(oldOrder, i) : (i: number) => i;
    const newPosition = new Int32Array(cols.n).fill(-1);
    const runs: { dst: number; src: number; len: number }[] = [];
    const singles: { at: number; ad: AddedAd }[] = [];
    let i = 0;
    let a = 0;
    for (let to = 0; to < n; to++) {
      while (i < cols.n && removed[oldAt(i)]) i++;
      const p = oldAt(i);
      const next = added[a];
      const takeOld =
        i < cols.n && (!next || at(cols.first, p) < next.first || (at(cols.first, p) === next.first && at(rankOf, p) < next.rank));
      if (!takeOld) {
        singles.push({ at: to, ad: added[a++] as AddedAd });
        continue;
      }
      newPosition[p] = to;
      const u = updatedAt[p] ?? -1;
      if (u >= 0) singles.push({ at: to, ad: updated[u] as AddedAd });
      else {
        const run = runs.at(-1);
        if (run && run.dst + run.len === to && run.src + run.len === p) run.len++;
        else runs.push({ dst: to, src: p, len: 1 });
      }
      i++;
    }

    const dicts = extendDictionaries(old, [...added, ...updated]);
    // Updated ads are single slots too: their hosts' codes are looked up with the added ones'.
    const hosts = extendHosts(cols, [...added, ...updated], this.alloc);
    const pick = <A extends Int32Array | Uint8Array | Float64Array>(
      make: TypedArrayOf<A>,
      column: A,
      valueOf: (ad: AddedAd) => number,
      map?: (v: number) => number,
    ): A => {
      const out = this.alloc(make, n);
      for (const { dst, src, len } of runs) {
        if (!map) out.set(column.subarray(src, src + len), dst);
        else for (let i = 0; i < len; i++) out[dst + i] = map(at(column, src + i));
      }
      for (const { at, ad } of singles) out[at] = valueOf(ad);
      return out;
    };
    const code = (dict: keyof typeof dicts.codes, value: string | null) => (value === null ? -1 : (dicts.codes[dict].get(value) ?? -1));
    const csr = (offsets: Int32Array, values: Uint16Array, valuesOf: (ad: AddedAd) => number[]) => {
      const lengths = new Int32Array(n);
      for (const { dst, src, len } of runs) for (let i = 0; i < len; i++) lengths[dst + i] = at(offsets, src + i + 1) - at(offsets, src + i);
      const lists = singles.map(({ at, ad }) => {
        const list = valuesOf(ad);
        lengths[at] = list.length;
        return list;
      });
      const off = this.alloc(Int32Array, n + 1);
      for (let q = 0; q < n; q++) off[q + 1] = at(off, q) + at(lengths, q);
      const val = this.alloc(Uint16Array, at(off, n));
      for (const { dst, src, len } of runs) val.set(values.subarray(at(offsets, src), at(offsets, src + len)), at(off, dst));
      singles.forEach((single, i) => val.set(lists[i] ?? [], at(off, single.at)));
      return { off, val };
    };
    const countries = csr(cols.countryOff, cols.countryVal, (ad) => list(ad.row.countries).map((c) => code('countries', c)));
    const categories = csr(cols.categoryOff, cols.categoryVal, (ad) => list(ad.row.categories).map((c) => code('categories', c)));
    const next: AdColumns = {
      n,
      sorted: n,
      ...eachValueColumn(code, (name, { make, valueOf }) => pick(make, cols[name], valueOf)),
      idRank: pick(Int32Array, rankOf, (ad) => ad.rank),
      countryOff: countries.off,
      countryVal: countries.val,
      categoryOff: categories.off,
      categoryVal: categories.val,
      host: cols.host && hosts ? pick(Int32Array, cols.host, (ad) => hosts.codeOf(ad.row.host_rev)) : null,
      hostOrder: hosts?.order ?? null,
      hostRank: hosts?.rank ?? null,
      dicts: { ...dicts.dicts, hostsReversed: cols.dicts.hostsReversed },
    };
    this.relabel(next.dicts, dicts.codes, touchedIds(cols, removed, [...added, ...updated]), state.seq === this.forwardingTo - 1 ? this.records : null);
    const isAdded = new Set(added);
    const addedAt = singles.filter(({ ad }) => isAdded.has(ad));
    const columnar = new ColumnarAds(next, dicts.codes, { alloc: this.alloc });
    columnar.warmLike(old);
    const wordBits = moveWordBits(state.wordBits, n, positionRuns(newPosition), addedAt, this.alloc);
    return { columnar, wordBits, wordStride: (n + 31) >>> 5, layout: randomUUID() };
  }

  /**
   * The columns after batches that move no position: no stored row left, every added ad is first seen on or after the
   * newest stored first-seen day, and rows changed in place kept their countries and categories. Then the added ads
   * are a tail, whatever their ids and hosts (ADR 0018): positions follow first_seen only from `sorted` on, so a new
   * ad's id need not sort after the stored ones (its id rank falls in the gap between its neighbours': id-ranks.ts),
   * and hosts are codes in the order they came with a sorted order beside them (a new host moves no stored value). The
   * columns that never change for a stored ad (ids, ranks, codes, lists) grow in place into spare room (readers of the
   * previous version read only up to its length), the moving values (dates, status, activity, popularity,
   * impressions) and the word bitsets are patched in buffers no read is on (the live writer's: moving-buffers.ts) or in
   * a copy, and each grouping and order keeps what it had, the batch's entries added to a short list beside it
   * (grouped-tail.ts, sort-orders.ts: decisions/0020), not a copy. Null when the batches do not qualify: the merge runs.
   */
  private appended(state: Versioned, added: AddedAd[], updated: AddedAd[]): LiveState | null {
    const old = state.columnar;
    const cols = old.cols;
    const n0 = cols.n;
    const lastFirst = n0 ? at(cols.first, n0 - 1) : -Infinity;
    for (const ad of added) if (ad.first < lastFirst) return null;
    const codes = old.codes;
    const sameList = (offsets: Int32Array, values: Uint16Array, p: number, joined: string, dict: Map<string, number>) => {
      const now = list(joined).map((v) => dict.get(v) ?? -1);
      const was = Array.from(values.subarray(at(offsets, p), at(offsets, p + 1)));
      if (now.length !== was.length) return false;
      now.sort((a, b) => a - b);
      was.sort((a, b) => a - b);
      return now.every((v, i) => v === was[i]);
    };
    for (const ad of updated) {
      const p = old.positionOf(ad.row.rid);
      if (!sameList(cols.countryOff, cols.countryVal, p, ad.row.countries, codes.countries)) return null;
      if (!sameList(cols.categoryOff, cols.categoryVal, p, ad.row.categories, codes.categories)) return null;
    }
    const ranks = this.rankTail(old, added);
    if (!ranks) return null;

    // Positions after every stored one, in (first_seen, id) order among themselves.
    added.sort((a, b) => a.first - b.first || a.rank - b.rank);
    const n = n0 + added.length;
    const [head] = added;
    // Still (first_seen, id) order throughout when the stored positions were and the tail's first comes after the last.
    const inOrder = cols.sorted === n0 && (!head || n0 === 0 || head.first > lastFirst || head.rank > at(ranks, n0 - 1));
    const dicts = extendDictionaries(old, [...added, ...updated]);
    const hosts = extendHosts(cols, added, this.alloc);
    const code = (dict: keyof typeof dicts.codes, value: string | null) => (value === null ? -1 : (dicts.codes[dict].get(value) ?? -1));
    const grow = <A extends TypedArray>(make: TypedArrayOf<A>, column: A, length: number): A => {
      if (column.byteOffset === 0 && column.buffer.byteLength >= length * make.BYTES_PER_ELEMENT) return new make(column.buffer, 0, length);
      const room = this.alloc(make, Math.ceil(length * 1.25) + 1024);
      room.set(column as never);
      return room.subarray(0, length) as A;
    };
    /** A column no stored ad's value of changes: grown in place, the tail's values written after the stored ones. */
    const tail = <A extends Int32Array | Uint8Array | Float64Array>(make: TypedArrayOf<A>, column: A, valueOf: (ad: AddedAd) => number): A => {
      const out = grow(make, column, n);
      added.forEach((ad, i) => (out[n0 + i] = valueOf(ad)));
      return out;
    };
    const updatedAt = updated.map((ad) => old.positionOf(ad.row.rid));
    // The moving columns hold the previous version's values (readers of that version still read its own), patched
    // below at the positions this batch changed and extended.
    const previous: Partial<Pick<AdColumns, ValueColumn>> | null = this.movingBuffers?.next(state.seq, cols, n) ?? null;
    const moving = <K extends ValueColumn>(name: K, make: TypedArrayOf<AdColumns[K]>, column: AdColumns[K], valueOf: (ad: AddedAd) => number): AdColumns[K] => {
      const prefilled: AdColumns[K] | undefined = previous?.[name];
      const out = prefilled ?? this.alloc(make, n);
      if (!prefilled) out.set(column as never);
      updated.forEach((ad, i) => (out[updatedAt[i] ?? 0] = valueOf(ad)));
      added.forEach((ad, i) => (out[n0 + i] = valueOf(ad)));
      return out;
    };
    const csr = (offsets: Int32Array, values: Uint16Array, dict: keyof typeof dicts.codes, joined: (ad: AddedAd) => string) => {
      const lists = added.map((ad) => list(joined(ad)).map((v) => code(dict, v)));
      const off = grow(Int32Array, offsets, n + 1);
      const used = at(offsets, n0);
      lists.forEach((l, i) => (off[n0 + i + 1] = at(off, n0 + i) + l.length));
      const val = grow(Uint16Array, values, at(off, n));
      let to = used;
      for (const l of lists) for (const v of l) val[to++] = v;
      return { off, val, lists };
    };
    const countries = csr(cols.countryOff, cols.countryVal, 'countries', (ad) => ad.row.countries);
    const categories = csr(cols.categoryOff, cols.categoryVal, 'categories', (ad) => ad.row.categories);
    const hostCode = (ad: AddedAd) => hosts?.codeOf(ad.row.host_rev) ?? -1;
    const next: AdColumns = {
      n,
      sorted: inOrder ? n : cols.sorted,
      ...eachValueColumn(code, (name, { make, moves, valueOf }) => (moves ? moving(name, make, cols[name], valueOf) : tail(make, cols[name], valueOf))),
      idRank: tail(Int32Array, ranks, (ad) => ad.rank),
      countryOff: countries.off,
      countryVal: countries.val,
      categoryOff: categories.off,
      categoryVal: categories.val,
      host: cols.host && hosts ? tail(Int32Array, cols.host, hostCode) : null,
      hostOrder: hosts?.order ?? null,
      hostRank: hosts?.rank ?? null,
      dicts: { ...dicts.dicts, hostsReversed: cols.dicts.hostsReversed },
    };
    this.relabel(next.dicts, dicts.codes, touchedIds(cols, null, [...added, ...updated]), state.seq === this.forwardingTo - 1 ? this.records : null);
    this.movingBuffers?.keep(state.seq, cols, this.forwardingTo, updatedAt, n0, n);

    // The indexes the previous columns had, with the batch's entries added (one not built there is built when first used).
    const built = old.builtIndexes();
    const keyed = (column: Int32Array | null) => added.map((_, i) => [column ? at(column, n0 + i) : -1, n0 + i] as [number, number]);
    const listed = (lists: number[][]) => lists.flatMap((l, i) => l.map((v) => [v, n0 + i] as [number, number]));
    const splice = (g: Grouped | null | undefined, size: number, entries: [number, number][]) =>
      g ? addToGrouped(g, size, entries, this.alloc) : undefined;
    const indexes: Partial<ColumnIndexes> = {
      country: splice(built.country, next.dicts.countries.length, listed(countries.lists)),
      category: splice(built.category, next.dicts.categories.length, listed(categories.lists)),
      advertiserId: splice(built.advertiserId, next.dicts.advertiserIds.length, keyed(next.advertiser)),
      webmasterId: splice(built.webmasterId, next.dicts.webmasterIds.length, keyed(next.webmaster)),
      appId: splice(built.appId, next.dicts.appIds.length, keyed(next.app)),
      creativeId: splice(built.creativeId, next.dicts.creativeIds.length, keyed(next.creative)),
      last: built.last
        ? patchSortedDays(
            built.last,
            updatedAt.map((p) => at(cols.last, p)),
            [...updatedAt.map((p) => at(next.last, p)), ...added.map((_, i) => at(next.last, n0 + i))],
            this.alloc,
          )
        : undefined,
    };
    // The batch's values moved only at the updated positions and the tail's: each order has them merged in again.
    indexes.orders = Object.fromEntries(
      MOVING_SORTS.flatMap((sort) => {
        const order = built.orders?.[sort];
        return order ? [[sort, patchOrder(order, next, sort, updatedAt, n0, this.alloc)]] : [];
      }),
    );
    if (built.host !== undefined) {
      // Grouped by host rank: new hosts open empty groups at their ranks first.
      const byRank = built.host && hosts?.rankOfOld ? relaidByRank(built.host, hosts.rankOfOld, hosts.order.length, this.alloc) : built.host;
      const ranked = added.map((ad, i) => [hosts ? at(hosts.rank, hostCode(ad)) : -1, n0 + i] as [number, number]);
      indexes.host = byRank && hosts ? addToGrouped(byRank, hosts.order.length, ranked, this.alloc) : null;
    }
    if (built.pairs && next.dicts.countries.length === cols.dicts.countries.length && next.dicts.categories.length === cols.dicts.categories.length) {
      const pairs = this.alloc(Int32Array, built.pairs.length);
      pairs.set(built.pairs);
      const width = next.dicts.categories.length;
      countries.lists.forEach((cs, i) => {
        for (const c of cs) for (const k of categories.lists[i] ?? []) pairs[c * width + k] = at(pairs, c * width + k) + 1;
      });
      indexes.pairs = pairs;
    }
    if (built.posOfRid) {
      const maxRid = added.reduce((m, ad) => Math.max(m, ad.row.rid), built.posOfRid.length - 1);
      const posOfRid = grow(Int32Array, built.posOfRid, maxRid + 1);
      posOfRid.fill(-1, built.posOfRid.length);
      added.forEach((ad, i) => (posOfRid[ad.row.rid] = n0 + i));
      indexes.posOfRid = posOfRid;
    }
    const columnar = new ColumnarAds(next, dicts.codes, { alloc: this.alloc, indexes });
    const tailWords = added.map((ad, i) => ({ at: n0 + i, ad }));
    if (!this.wordBitsBuffers) {
      const wordBits = moveWordBits(state.wordBits, n, [{ src: 0, dst: 0, len: n0 }], tailWords, this.alloc);
      return { columnar, wordBits, wordStride: (n + 31) >>> 5, layout: state.layout };
    }
    // The live writer's: the stored positions' bits as they were (a tail batch changes no stored ad's words), the
    // tail's set.
    const { bits, stride } = this.wordBitsBuffers.next(state.seq, state.wordBits, n);
    setWordBits(bits, tailWords);
    this.wordBitsBuffers.keep(state.seq, state.wordBits, state.wordStride, this.forwardingTo, n0, n);
    return { columnar, wordBits: bits, wordStride: stride, layout: state.layout };
  }

  /**
   * Each added ad's id rank, between the ranks of its stored neighbours in id order (found on the ids' unique index):
   * added ids with no stored id between them share that gap, in id order. The stored ranks stay as they are, unless a
   * gap has no room left: then every stored rank is spread again (id-ranks.ts). Returns the stored ranks the added ones
   * fit among; null when a neighbour is a row the columns do not have (not expected: the merge ranks every id again).
   */
  private rankTail(old: ColumnarAds, added: AddedAd[]): Int32Array | null {
    const cols = old.cols;
    added.sort(byId);
    // Positions of each run's stored neighbours (-1: none on that side).
    const runs: { low: number; high: number; ads: AddedAd[] }[] = [];
    for (const ad of added) {
      const before = this.s.idBefore.get(ad.row.id) as { rid: number } | undefined;
      const run = runs.at(-1);
      // The added id just below (the one before in id order) means no stored id between them.
      if (before && run && run.ads.at(-1)?.row.rid === before.rid) {
        run.ads.push(ad);
        continue;
      }
      const low = before ? old.positionOf(before.rid) : -1;
      if (before && low < 0) return null;
      runs.push({ low, high: -1, ads: [ad] });
    }
    for (const run of runs) {
      // The id just above a run's last is a stored one (an added one would be in the run).
      const after = this.s.idAfter.get(run.ads.at(-1)?.row.id ?? '') as { rid: number } | undefined;
      run.high = after ? old.positionOf(after.rid) : -1;
      if (after && run.high < 0) return null;
    }
    const gap = rankGap(cols.n + added.length);
    const fit = (ranks: Int32Array) =>
      runs.every((run) => {
        const between = ranksBetween(run.low < 0 ? null : at(ranks, run.low), run.high < 0 ? null : at(ranks, run.high), run.ads.length, gap);
        run.ads.forEach((ad, i) => (ad.rank = between?.[i] ?? 0));
        return between !== null;
      });
    if (fit(cols.idRank)) return cols.idRank;
    const spread = respread(cols.idRank, cols.n, this.alloc);
    return fit(spread) ? spread : null;
  }

  /** The rows with these ids that still exist (a later batch may have replaced one), with their words when asked. */
  private rowsOf(rids: number[], withWords: boolean): AddedAd[] {
    const out: AddedAd[] = [];
    const adWords = (text: AdText | null) => (text ? new Set([...words(text.title), ...words(text.body), ...words(text.landing_url)]) : new Set<string>());
    // Rows the writer holds already (the batch it is applying) are not read back.
    const unknown = this.known ? rids.filter((rid) => !this.known?.has(rid)) : rids;
    if (this.known) {
      for (const rid of rids) {
        const known = this.known.get(rid);
        if (known) out.push({ row: known.row, first: dayNumber(known.row.first_seen), rank: 0, anchor: -1, words: adWords(withWords ? known.text : null) });
      }
    }
    for (let i = 0; i < unknown.length; i += CHUNK) {
      const chunk = unknown.slice(i, i + CHUNK);
      // The doc (1-2 KB) only when its words are wanted: an ad changed in place kept its text.
      const rows = this.db
        .prepare(
          `SELECT ${AD_ROW_COLUMNS}${withWords ? ', d.doc' : ''} FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.rid IN (${chunk.map(() => '?').join(',')})`,
        )
        .all(...chunk) as unknown as (AdRow & { doc?: string })[];
      for (const { doc, ...row } of rows) {
        const text = withWords && doc ? (JSON.parse(doc) as AdText) : null;
        out.push({ row, first: dayNumber(row.first_seen), rank: 0, anchor: -1, words: adWords(text) });
      }
    }
    return out;
  }

  /**
   * Ranks every id again, in id order, spread (id-ranks.ts): surviving positions keep their relative order, each added
   * id goes after the nearest smaller id among the older rows (found on the ids' unique index). Returns the new rank of
   * every old position (removed ones: unused) and sets each added ad's.
   */
  private rankIds(old: ColumnarAds, removed: Uint8Array, added: AddedAd[]): Int32Array {
    const cols = old.cols;
    added.sort(byId);
    const anchorOfAdded = new Map<number, number>();
    for (const ad of added) {
      const before = this.s.idBefore.get(ad.row.id) as { rid: number } | undefined;
      const p = before ? old.positionOf(before.rid) : -1;
      ad.anchor = before === undefined ? -1 : p >= 0 ? p : (anchorOfAdded.get(before.rid) ?? -1);
      anchorOfAdded.set(ad.row.rid, ad.anchor);
    }
    const gap = rankGap(cols.n + added.length);
    let rank = 0;
    const next = () => spreadRank(rank++, gap);
    const rankOf = new Int32Array(cols.n);
    let a = 0;
    while (a < added.length && (added[a] as AddedAd).anchor === -1) (added[a++] as AddedAd).rank = next();
    for (const q of inRankOrder(cols.idRank, cols.n)) {
      if (!removed[q]) rankOf[q] = next();
      while (a < added.length && (added[a] as AddedAd).anchor === q) (added[a++] as AddedAd).rank = next();
    }
    return rankOf;
  }

  /**
   * Labels of the entities a batch touched follow their records (names can change when ads disagree). `records`: the
   * records the writer rendered for this one batch; a touched entity not among them kept its record (and its label),
   * so nothing is read. Without them (a reader, or several batches at once) each touched record is read.
   */
  private relabel(dicts: AdColumns['dicts'], codes: ColumnarAds['codes'], touched: TouchedIds, records: EntityRows | null): void {
    const record = <T>(kind: string, id: string): T | null => {
      if (records) return ((records.get(kind)?.get(id)?.row as T | undefined) ?? null);
      const row = this.s.entity.get(kind, id) as { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as T) : null;
    };
    const set = <T>(dict: Relabel['dict'], labels: T[], code: number, label: T, same: (a: T, b: T) => boolean = (a, b) => a === b) => {
      const was = labels[code];
      if (was !== undefined && same(was, label)) return;
      labels[code] = label;
      this.relabels.push({ dict, code });
    };
    for (const id of touched.advertisers) {
      const code = codes.advertiserIds.get(id);
      const row = record<{ name: string }>('advertiser', id);
      if (code !== undefined && row) set('advertiserNames', dicts.advertiserNames, code, row.name);
    }
    for (const id of touched.webmasters) {
      const code = codes.webmasterIds.get(id);
      const row = record<{ name: string }>('webmaster', id);
      if (code !== undefined && row) set('webmasterNames', dicts.webmasterNames, code, row.name);
    }
    for (const id of touched.apps) {
      const code = codes.appIds.get(id);
      const row = record<{ name: string; store: AppStore; bundle_id: string }>('app', id);
      const app = row && { name: row.name, store: row.store, bundle_id: row.bundle_id };
      if (code !== undefined && app) set('apps', dicts.apps, code, app, (a, b) => a.name === b.name && a.store === b.store && a.bundle_id === b.bundle_id);
    }
    for (const id of touched.creatives) {
      const code = codes.creativeIds.get(id);
      const row = record<{ title: string; creative_format: CreativeFormat }>('creative', id);
      if (code !== undefined && row) {
        set('creativeTitles', dicts.creativeTitles, code, row.title);
        set('creativeFormats', dicts.creativeFormats, code, row.creative_format);
      }
    }
  }
}

/** Entity records by kind and id, as rendered (null: deleted): EntityRecords.applyChanges' result. */
export type EntityRows = ReadonlyMap<string, ReadonlyMap<string, { row: unknown } | null>>;

interface TouchedIds {
  advertisers: Set<string>;
  webmasters: Set<string>;
  apps: Set<string>;
  creatives: Set<string>;
}

/** The entities whose ads a batch removed (null: none) or added. */
function touchedIds(cols: AdColumns, removed: Uint8Array | null, added: AddedAd[]): TouchedIds {
  const t: TouchedIds = { advertisers: new Set(), webmasters: new Set(), apps: new Set(), creatives: new Set() };
  const d = cols.dicts;
  for (let p = 0; removed && p < cols.n; p++) {
    if (!removed[p]) continue;
    const at = (ids: string[], code: number | undefined, into: Set<string>) => {
      const id = code === undefined || code < 0 ? undefined : ids[code];
      if (id !== undefined) into.add(id);
    };
    at(d.advertiserIds, cols.advertiser[p], t.advertisers);
    at(d.webmasterIds, cols.webmaster[p], t.webmasters);
    at(d.appIds, cols.app[p], t.apps);
    at(d.creativeIds, cols.creative[p], t.creatives);
  }
  for (const { row } of added) {
    t.advertisers.add(row.advertiser_id);
    if (row.webmaster_id) t.webmasters.add(row.webmaster_id);
    if (row.app_id && row.app_doc) t.apps.add(row.app_id);
    t.creatives.add(row.creative_id);
  }
  return t;
}

/**
 * The dictionaries with the added ads' new values appended. Codes never change, so the arrays and the maps grow in
 * place (the columns brought forward replace the old ones, which nobody reads after; copying them cost a pass over
 * every dictionary per batch).
 */
function extendDictionaries(old: ColumnarAds, added: AddedAd[]): { dicts: Omit<AdColumns['dicts'], 'hostsReversed'>; codes: ColumnarAds['codes'] } {
  const { hostsReversed: _hosts, ...dicts } = old.cols.dicts;
  const codes = old.codes;
  const ensure = (dict: keyof typeof codes, value: string, onNew?: () => void) => {
    if (codes[dict].has(value)) return;
    codes[dict].set(value, dicts[dict].length);
    dicts[dict].push(value);
    onNew?.();
  };
  for (const { row } of added) {
    ensure('platforms', row.platform);
    for (const c of list(row.countries)) ensure('countries', c);
    for (const c of list(row.categories)) ensure('categories', c);
    ensure('advertiserIds', row.advertiser_id, () => dicts.advertiserNames.push(row.advertiser_name));
    if (row.webmaster_id) ensure('webmasterIds', row.webmaster_id, () => dicts.webmasterNames.push(row.webmaster_name ?? ''));
    if (row.app_id && row.app_doc) {
      const info = JSON.parse(row.app_doc) as { name: string; store: AppStore; bundle_id: string };
      ensure('appIds', row.app_id, () => dicts.apps.push({ name: info.name, store: info.store, bundle_id: info.bundle_id }));
    }
    ensure('creativeIds', row.creative_id, () => {
      dicts.creativeTitles.push(row.creative_title);
      dicts.creativeFormats.push(row.creative_format);
    });
  }
  return { dicts, codes };
}

/**
 * Each word bitset over the new positions: surviving bits move with their ads, added ads set their words' bits.
 * Surviving positions move in runs by one offset each (removed ones drop out, added ones open gaps), so bits are
 * copied run by run, up to 32 at a time, instead of one set bit at a time.
 */
function moveWordBits(
  wordBits: Map<string, Uint32Array>,
  n: number,
  runs: { src: number; dst: number; len: number }[],
  added: { at: number; ad: AddedAd }[],
  alloc: Alloc,
): Map<string, Uint32Array> {
  const length = (n + 31) >>> 5;
  const out = wordBitsIn(alloc(Uint32Array, length * wordBits.size), [...wordBits.keys()], length);
  for (const [word, bits] of wordBits) {
    const moved = out.get(word);
    if (moved) for (const { src, dst, len } of runs) copyBits(bits, src, moved, dst, len);
  }
  setWordBits(out, added);
  return out;
}

/** Sets the bits of the added ads' words at their positions. */
function setWordBits(wordBits: Map<string, Uint32Array>, added: { at: number; ad: AddedAd }[]): void {
  for (const { at: to, ad } of added) {
    for (const word of ad.words) {
      const bits = wordBits.get(word);
      if (bits) bits[to >>> 5] = at(bits, to >>> 5) | (1 << (to & 31));
    }
  }
}

/** Days sorted ascending, with some taken out and some put in: rebuilt from the count of each day (a few hundred fills). */
function patchSortedDays(sorted: Int32Array, out: number[], put: number[], alloc: Alloc): Int32Array {
  const counts = new Map<number, number>();
  for (let i = 0; i < sorted.length; ) {
    const day = at(sorted, i);
    const next = lowerBound(sorted, day + 1);
    counts.set(day, next - i);
    i = next;
  }
  for (const day of out) counts.set(day, (counts.get(day) ?? 0) - 1);
  for (const day of put) counts.set(day, (counts.get(day) ?? 0) + 1);
  const days = alloc(Int32Array, sorted.length - out.length + put.length);
  let to = 0;
  for (const day of [...counts.keys()].sort((a, b) => a - b)) {
    const count = counts.get(day) ?? 0;
    days.fill(day, to, to + count);
    to += count;
  }
  return days;
}

/**
 * The hosts with the added ads' new ones given the next codes (the dictionary grows in place: codes never change, so
 * no stored value moves) and, when there are new ones, the sorted order and ranks made again (a pass over the hosts,
 * not the ads). `rankOfOld`: each old rank's new one (null: no new host, the order is the old one). Null when the
 * columns have no hosts (a store built before them).
 */
function extendHosts(
  cols: AdColumns,
  added: AddedAd[],
  alloc: Alloc,
): { order: Int32Array; rank: Int32Array; codeOf: (hostRev: string) => number; rankOfOld: Int32Array | null } | null {
  const { host, hostOrder: order, hostRank: rank } = cols;
  const hosts = cols.dicts.hostsReversed;
  if (!host || !order || !rank || !Array.isArray(hosts)) return null;
  const sorted = { length: order.length, at: (r: number) => hosts[at(order, r)] };
  const codes = new Map<string, number>();
  const fresh: string[] = [];
  for (const { row } of added) {
    if (codes.has(row.host_rev)) continue;
    const r = lowerBound(sorted, row.host_rev);
    if (r < order.length && sorted.at(r) === row.host_rev) codes.set(row.host_rev, at(order, r));
    else {
      codes.set(row.host_rev, order.length + fresh.length);
      fresh.push(row.host_rev);
    }
  }
  const codeOf = (hostRev: string) => codes.get(hostRev) ?? -1;
  if (!fresh.length) return { order, rank, codeOf, rankOfOld: null };
  // Codes past the order's are a rolled-back batch's (LiveColumns.restore): no column has them.
  hosts.length = order.length;
  const firstCode = hosts.length;
  hosts.push(...fresh);
  const incoming = fresh.map((_, i) => firstCode + i).sort((x, y) => ((hosts[x] ?? '') < (hosts[y] ?? '') ? -1 : 1));
  const size = order.length + fresh.length;
  const nextOrder = alloc(Int32Array, size);
  const rankOfOld = new Int32Array(order.length);
  let f = 0;
  let to = 0;
  for (let r = 0; r < order.length; r++) {
    const code = at(order, r);
    while (f < incoming.length && (hosts[incoming[f] ?? 0] ?? '') < (hosts[code] ?? '')) nextOrder[to++] = incoming[f++] ?? 0;
    rankOfOld[r] = to;
    nextOrder[to++] = code;
  }
  while (f < incoming.length) nextOrder[to++] = incoming[f++] ?? 0;
  const nextRank = alloc(Int32Array, size);
  for (let r = 0; r < size; r++) nextRank[at(nextOrder, r)] = r;
  return { order: nextOrder, rank: nextRank, codeOf, rankOfOld };
}

/**
 * Every position in (first_seen, id) order by the ranks given: the sorted ones (up to `cols.sorted`) merged with the
 * tail's, sorted here (they share the tail's first day with the sorted ones): the order a merge walks them in.
 */
function inIdOrder(cols: AdColumns, rankOf: Int32Array): Int32Array {
  const before = (p: number, q: number) => at(cols.first, p) - at(cols.first, q) || at(rankOf, p) - at(rankOf, q);
  const tail = new Int32Array(cols.n - cols.sorted);
  for (let i = 0; i < tail.length; i++) tail[i] = cols.sorted + i;
  tail.sort(before);
  const order = new Int32Array(cols.n);
  let p = 0;
  let t = 0;
  for (let to = 0; to < cols.n; to++) {
    const q = at(tail, t);
    order[to] = p < cols.sorted && (t >= tail.length || before(p, q) < 0) ? p++ : (t++, q);
  }
  return order;
}

/** The old positions that survive, as runs that keep their order and move by one offset (newPosition -1: removed). */
function positionRuns(newPosition: Int32Array): { src: number; dst: number; len: number }[] {
  const runs: { src: number; dst: number; len: number }[] = [];
  for (let p = 0; p < newPosition.length; p++) {
    const to = newPosition[p] ?? -1;
    if (to < 0) continue;
    const run = runs.at(-1);
    if (run && run.src + run.len === p && run.dst + run.len === to) run.len++;
    else runs.push({ src: p, dst: to, len: 1 });
  }
  return runs;
}

function prepare(db: DatabaseSync) {
  const st = (sql: string): StatementSync => db.prepare(sql);
  return {
    meta: st("SELECT key, value FROM meta WHERE key IN ('columns_base', 'columns_seq', 'seq')"),
    blobs: st('SELECT name, data FROM trend_columns'),
    changes: st('SELECT rid, change FROM live_changes WHERE seq > ? AND seq <= ? ORDER BY seq, change'),
    idBefore: st('SELECT rid FROM ads WHERE id < ? ORDER BY id DESC LIMIT 1'),
    idAfter: st('SELECT rid FROM ads WHERE id > ? ORDER BY id LIMIT 1'),
    entity: st('SELECT row_doc AS doc FROM entities WHERE kind = ? AND id = ?'),
  };
}

const list = (joined: string) => (joined ? joined.split(',') : []);

const byId = (a: AddedAd, b: AddedAd) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0);
