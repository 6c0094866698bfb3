import { DESTINATION_TYPES, type AdSort, type SortOrder } from '@adintel/contracts';
import type { AdFilter } from '../ad-store.port';
import { dayNumber, reverseHost } from '../text';
import type { AdColumns, SortedList } from './ad-columns';
import { buildOrder, isMovingSort, MOVING_SORTS, type MovingOrder, type MovingSort, type SortOrders, sortValueOf, walkOrder } from './sort-orders';
import { type Alloc, at, localAlloc } from './typed-alloc';

/**
 * Ad search over the in-memory columns, for filter combinations no single index serves well
 * (e.g. country + category + status, or a mid-frequency word): one pass over the candidates with
 * typed-array checks and a bounded top-k on (sort value, id rank); and the bounded counts of every filter.
 */
export class ColumnarAds {
  private readonly posOfRid: Int32Array;
  /**
   * Posting lists: the positions of each country, category, advertiser, webmaster, app and creative code,
   * ascending. A scan or a count visits only one value's ads; alone, a list's length is the exact count.
   * A reader deriving its own columns builds each on first use (rebuilding every index after every live batch would
   * pay for the ones no query asks); the live writer builds them all once per batch and shares them (allIndexes).
   */
  private readonly countryPostings: Once<Grouped>;
  private readonly categoryPostings: Once<Grouped>;
  private readonly idPostings: Record<IdFilter, Once<Grouped>>;
  /** Positions grouped by host rank (ascending within a host): a host range's ads are one slice, not in position order. */
  private readonly byHost: Once<Grouped | null>;
  /** Ads per (country, category) pair: the count of that filter pair alone. */
  private readonly pairCounts: Once<Int32Array>;
  /** Every ad's last_seen day, ascending: with positions in first_seen order, a date range alone is counted by two binary searches. */
  private readonly lastSorted: Once<Int32Array>;
  /** The positions in order of each moving sort (sort-orders.ts): a sorted search walks one and stops after a page. */
  private readonly sortOrders: Record<MovingSort, Once<MovingOrder>>;
  /** Each dictionary's codes by value. */
  readonly codes: DictionaryCodes;

  /**
   * `codes`: the dictionaries' codes when the caller has them already (live-columns.ts extends them batch by batch).
   * `indexes`: built already (by the live writer, shared-columns.ts); `alloc`: where indexes built here live.
   */
  constructor(
    readonly cols: AdColumns,
    codes?: DictionaryCodes,
    options: { indexes?: Partial<ColumnIndexes>; alloc?: Alloc } = {},
  ) {
    const { indexes, alloc = localAlloc } = options;
    this.codes = codes ?? dictionaryCodes(cols.dicts);
    this.posOfRid = indexes?.posOfRid ?? ColumnarAds.positionsOfRids(cols.rid, alloc);
    const c = cols;
    const d = c.dicts;
    const built = <T>(index: T | undefined, make: () => T) => once(index === undefined ? make : () => index);
    this.countryPostings = built(indexes?.country, () => ColumnarAds.postings(c.countryOff, c.countryVal, c.n, d.countries.length, alloc));
    this.categoryPostings = built(indexes?.category, () => ColumnarAds.postings(c.categoryOff, c.categoryVal, c.n, d.categories.length, alloc));
    this.idPostings = {
      advertiserId: built(indexes?.advertiserId, () => ColumnarAds.grouped(c.advertiser, d.advertiserIds.length, alloc)),
      webmasterId: built(indexes?.webmasterId, () => ColumnarAds.grouped(c.webmaster, d.webmasterIds.length, alloc)),
      appId: built(indexes?.appId, () => ColumnarAds.grouped(c.app, d.appIds.length, alloc)),
      creativeId: built(indexes?.creativeId, () => ColumnarAds.grouped(c.creative, d.creativeIds.length, alloc)),
    };
    this.byHost = built(indexes?.host, () => (c.host && c.hostRank ? ColumnarAds.grouped(c.host, c.hostRank.length, alloc, c.hostRank) : null));
    this.pairCounts = built(indexes?.pairs, () => this.countPairs(alloc));
    this.lastSorted = built(indexes?.last, () => sortedDays(c.last, alloc));
    const orders = indexes?.orders ?? {};
    this.sortOrders = Object.fromEntries(MOVING_SORTS.map((sort) => [sort, built(orders[sort], () => buildOrder(c, sort, alloc))])) as Record<
      MovingSort,
      Once<MovingOrder>
    >;
  }

  /** Position of every row id (-1: none), indexed by row id. */
  private static positionsOfRids(rid: Int32Array, alloc: Alloc): Int32Array {
    let maxRid = 0;
    for (const r of rid) maxRid = Math.max(maxRid, r);
    const posOfRid = alloc(Int32Array, maxRid + 1).fill(-1);
    rid.forEach((r, p) => {
      posOfRid[r] = p;
    });
    return posOfRid;
  }

  /** Positions grouped by value of a many-values-per-ad column (offsets/values as in countryOff/countryVal). */
  private static postings(offsets: Int32Array, values: Uint16Array, n: number, size: number, alloc: Alloc): Grouped {
    const starts = alloc(Int32Array, size + 1);
    for (const v of values) starts[v + 1] = at(starts, v + 1) + 1;
    for (let k = 0; k < size; k++) starts[k + 1] = at(starts, k + 1) + at(starts, k);
    const fill = starts.slice(0, size);
    const positions = alloc(Int32Array, values.length);
    for (let p = 0; p < n; p++) {
      for (let j = at(offsets, p), end = at(offsets, p + 1); j < end; j++) {
        const v = at(values, j);
        positions[at(fill, v)] = p;
        fill[v] = at(fill, v) + 1;
      }
    }
    return { positions, offsets: starts, tail: null };
  }

  /**
   * Positions grouped by key (counting sort; keys below 0 are left out): key k's positions, ascending, are
   * offsets[k]..offsets[k + 1]. `keyOf`: the key of each value (hosts are grouped by rank, stored by code).
   */
  private static grouped(values: Int32Array, size: number, alloc: Alloc, keyOf?: Int32Array): Grouped {
    const keys = keyOf ? values.map((v) => (v < 0 ? v : at(keyOf, v))) : values;
    const offsets = alloc(Int32Array, size + 1);
    for (const k of keys) if (k >= 0) offsets[k + 1] = at(offsets, k + 1) + 1;
    for (let k = 0; k < size; k++) offsets[k + 1] = at(offsets, k + 1) + at(offsets, k);
    const fill = offsets.slice(0, size);
    const positions = alloc(Int32Array, at(offsets, size));
    keys.forEach((k, p) => {
      if (k < 0) return;
      positions[at(fill, k)] = p;
      fill[k] = at(fill, k) + 1;
    });
    return { positions, offsets, tail: null };
  }

  /** The indexes built so far (none is built here): what live-columns.ts splices a batch's tail into. */
  builtIndexes(): Partial<ColumnIndexes> {
    const built = <T>(index: Once<T>) => (index.built() ? index() : undefined);
    return {
      posOfRid: this.posOfRid,
      country: built(this.countryPostings),
      category: built(this.categoryPostings),
      advertiserId: built(this.idPostings.advertiserId),
      webmasterId: built(this.idPostings.webmasterId),
      appId: built(this.idPostings.appId),
      creativeId: built(this.idPostings.creativeId),
      host: built(this.byHost),
      pairs: built(this.pairCounts),
      last: built(this.lastSorted),
      orders: Object.fromEntries(MOVING_SORTS.flatMap((sort) => (this.sortOrders[sort].built() ? [[sort, this.sortOrders[sort]()]] : []))),
    };
  }

  /** Every index, built now where it was not yet: what the live writer shares with the readers for these columns. */
  allIndexes(): ColumnIndexes {
    return {
      posOfRid: this.posOfRid,
      country: this.countryPostings(),
      category: this.categoryPostings(),
      advertiserId: this.idPostings.advertiserId(),
      webmasterId: this.idPostings.webmasterId(),
      appId: this.idPostings.appId(),
      creativeId: this.idPostings.creativeId(),
      host: this.byHost(),
      pairs: this.pairCounts(),
      last: this.lastSorted(),
      orders: Object.fromEntries(MOVING_SORTS.map((sort) => [sort, this.sortOrders[sort]()])) as SortOrders,
    };
  }

  /** Whether these columns can answer a landing_domain filter (stores built before the host column cannot). */
  get servesHosts(): boolean {
    return this.cols.host !== null;
  }

  positionOf(rid: number): number {
    return this.posOfRid[rid] ?? -1;
  }

  /** The positions of an advertiser's ads, ascending (null when the columns know no such advertiser). */
  advertiserPositions(id: string): Int32Array | null {
    const code = this.codes.advertiserIds.get(id);
    return code === undefined ? null : joined(group(this.idPostings.advertiserId(), code));
  }

  sortValue(sort: AdSort, p: number): number {
    return sortValueOf(this.cols, sort, p);
  }

  /**
   * The filter as codes and typed-array checks (words excepted: they come as bits or candidates). Null when a
   * value is absent from the data, so nothing can match.
   */
  private compile(filter: AdFilter): CompiledFilter | null {
    const code = (dict: keyof ColumnarAds['codes'], value: string | undefined) =>
      value === undefined ? -1 : (this.codes[dict].get(value) ?? -2);
    const ids: Record<IdFilter, number> = {
      advertiserId: code('advertiserIds', filter.advertiserId),
      webmasterId: code('webmasterIds', filter.webmasterId),
      appId: code('appIds', filter.appId),
      creativeId: code('creativeIds', filter.creativeId),
    };
    const country = code('countries', filter.country);
    if ([...Object.values(ids), country].includes(-2)) return null;
    const hosts = filter.landingDomain === undefined ? null : this.hostRange(filter.landingDomain);
    if (hosts && hosts.from === hosts.to) return null;
    return {
      hosts,
      ids,
      country,
      platforms: filter.platforms ? new Set(filter.platforms.map((p) => this.codes.platforms.get(p) ?? -2)) : null,
      categories: filter.categories ? new Set(filter.categories.map((x) => this.codes.categories.get(x) ?? -2)) : null,
      active: filter.status === undefined ? -1 : filter.status === 'active' ? 1 : 0,
      destination: filter.destinationType === undefined ? -1 : DESTINATION_TYPES.indexOf(filter.destinationType),
      from: filter.dateFrom ? dayNumber(filter.dateFrom) : -Infinity,
      to: filter.dateTo ? dayNumber(filter.dateTo) : Infinity,
    };
  }

  /**
   * The ranks of the hosts equal to `domain` or ending with `.domain`: reversed, "com.example." up to (not
   * including) "com.example/", the range the SQL path scans on `host_rev`.
   */
  private hostRange(domain: string): { from: number; to: number } {
    const sorted = sortedHosts(this.cols);
    const reversed = reverseHost(domain);
    return { from: lowerBound(sorted, reversed), to: lowerBound(sorted, `${reversed.slice(0, -1)}/`) };
  }

  /** Whether the ad at position p passes every compiled check except the one `driver` already guarantees. */
  private matcher(f: CompiledFilter, driver: Driver | null): (p: number) => boolean {
    const c = this.cols;
    const { platforms, active, destination, from, to, categories } = f;
    const advertiser = driver === 'advertiserId' ? -1 : f.ids.advertiserId;
    const webmaster = driver === 'webmasterId' ? -1 : f.ids.webmasterId;
    const app = driver === 'appId' ? -1 : f.ids.appId;
    const creative = driver === 'creativeId' ? -1 : f.ids.creativeId;
    const country = driver === 'country' ? -1 : f.country;
    const checkCategories = driver === 'category' ? null : categories;
    const hosts = driver === 'host' ? null : f.hosts;
    const { host, hostRank } = c;
    return (p) => {
      if (hosts && host && hostRank) {
        const h = hostRank[host[p] ?? -1] ?? -1;
        if (h < hosts.from || h >= hosts.to) return false;
      }
      if (platforms && !platforms.has(c.platform[p] ?? -3)) return false;
      if (active >= 0 && c.active[p] !== active) return false;
      if (destination >= 0 && c.destination[p] !== destination) return false;
      if (advertiser >= 0 && c.advertiser[p] !== advertiser) return false;
      if (webmaster >= 0 && c.webmaster[p] !== webmaster) return false;
      if (app >= 0 && c.app[p] !== app) return false;
      if (creative >= 0 && c.creative[p] !== creative) return false;
      if (at(c.last, p) < from || at(c.first, p) > to) return false;
      if (country >= 0) {
        let found = false;
        for (let j = at(c.countryOff, p), end = at(c.countryOff, p + 1); j < end && !found; j++) found = c.countryVal[j] === country;
        if (!found) return false;
      }
      if (checkCategories) {
        let found = false;
        for (let j = at(c.categoryOff, p), end = at(c.categoryOff, p + 1); j < end && !found; j++) found = checkCategories.has(c.categoryVal[j] ?? -3);
        if (!found) return false;
      }
      return true;
    };
  }

  /**
   * For readers that visit their own candidates (the change feed, change-log.ts): whether the ad at a position passes
   * `filter` (words aside: they come as bits or candidates); the shortest posting list among its filters (every match
   * is in it; null: none has one) and the checks left for its positions (null: none, the list is the matches). Null
   * when nothing can match.
   */
  filterCheck(filter: AdFilter): { matches: (p: number) => boolean; postings: Int32Array | null; besides: ((p: number) => boolean) | null } | null {
    const f = this.compile(filter);
    if (!f) return null;
    const postings = this.shortestPostings(f);
    const driver = postings?.driver ?? null;
    return {
      matches: this.matcher(f, null),
      postings: postings ? joined(postings.list) : null,
      besides: this.checksBeside(f, driver) > 0 ? this.matcher(f, driver) : null,
    };
  }

  /** The shortest posting list among the filters that have one (null: none does). */
  private shortestPostings(f: CompiledFilter): Postings | null {
    let best: Postings | null = null;
    const offer = (driver: Driver, list: PositionList | undefined, ordered = true) => {
      if (!best || (list?.length ?? 0) < best.list.length) best = { driver, list: list ?? NO_POSITIONS, ordered };
    };
    const byHost = f.hosts ? this.byHost() : null;
    if (f.hosts && byHost) {
      // One host: its positions are ascending. Several: grouped by host, so a walk cannot stop early by date.
      offer('host', groupRange(byHost, f.hosts.from, f.hosts.to), f.hosts.to - f.hosts.from === 1);
    }
    if (f.country >= 0) offer('country', group(this.countryPostings(), f.country));
    if (f.categories?.size === 1) {
      const [category] = f.categories;
      offer('category', category === undefined ? undefined : group(this.categoryPostings(), category));
    }
    for (const key of ID_FILTERS) if (f.ids[key] >= 0) offer(key, group(this.idPostings[key](), f.ids[key]));
    return best;
  }

  /**
   * Rough cost (≈ µs, the SQL planner's unit) of search() on these columns: the positions it visits. Sorted by
   * date it stops after about `limit` matches; by a moving value it walks that sort's order when that visits fewer
   * (walkOf); otherwise it visits every position of its source.
   */
  searchCost(filter: AdFilter, sort: AdSort, limit: number, bits: Uint32Array | null): number {
    const f = this.compile(filter);
    if (!f) return 0;
    const postings = this.shortestPostings(f);
    const words = bits ? popcount(bits) : null;
    let visits = Math.min(this.end(f.to), postings?.list.length ?? Infinity, words ?? Infinity);
    // Each further check passes about half the positions (a guess, like the SQL planner's for status and platform).
    if (sort === 'date' && (postings?.ordered ?? true)) visits = Math.min(visits, (limit + 1) * 2 ** this.checksBeside(f, postings?.driver ?? null));
    return Math.min(visits, this.walkOf(f, sort, limit, words)) * COLUMN_VISIT_COST;
  }

  /**
   * The positions a walk of a moving sort's order visits for a page (Infinity for other sorts): a page's worth of
   * matches spread over the walk by the filter's share of the ads (matchShare), at most every position.
   */
  private walkOf(f: CompiledFilter, sort: AdSort, limit: number, words: number | null): number {
    if (!isMovingSort(sort)) return Infinity;
    const share = this.matchShare(f, words);
    return share > 0 ? Math.min(this.cols.n, (limit + 1) / share) : this.cols.n;
  }

  /**
   * The share of ads a filter matches, its filters taken as independent: countries, categories, ids and hosts by their
   * posting lists (a country with one category by its exact pair count), words by their count (`words`), dates by the
   * ads in range on either side; status and platform about half, a destination type about a third (the SQL
   * planner's guesses).
   */
  private matchShare(f: CompiledFilter, words: number | null): number {
    const n = this.cols.n;
    if (n === 0) return 0;
    const [category] = f.categories?.size === 1 ? f.categories : [];
    let share = words === null ? 1 : words / n;
    if (f.country >= 0 && category !== undefined) share *= this.countryCategoryCount(f.country, category) / n;
    else {
      if (f.country >= 0) share *= group(this.countryPostings(), f.country).length / n;
      if (f.categories) share *= Math.min(1, [...f.categories].reduce((sum, k) => sum + (k >= 0 ? group(this.categoryPostings(), k).length : 0), 0) / n);
    }
    for (const key of ID_FILTERS) if (f.ids[key] >= 0) share *= group(this.idPostings[key](), f.ids[key]).length / n;
    const byHost = f.hosts ? this.byHost() : null;
    if (f.hosts && byHost) share *= groupRange(byHost, f.hosts.from, f.hosts.to).length / n;
    if (f.to < Infinity) share *= this.end(f.to) / n;
    if (f.from > -Infinity) share *= (n - lowerBound(this.lastSorted(), f.from)) / n;
    if (f.platforms && f.platforms.size < 2) share *= 0.5;
    if (f.active >= 0) share *= 0.5;
    if (f.destination >= 0) share *= 0.3;
    return share;
  }

  /** How many filters a walk driven by `driver` still checks per position. */
  private checksBeside(f: CompiledFilter, driver: Driver | null): number {
    return (
      (f.platforms ? 1 : 0) +
      (f.active >= 0 ? 1 : 0) +
      (f.destination >= 0 ? 1 : 0) +
      (f.from > -Infinity ? 1 : 0) +
      (f.to < Infinity ? 1 : 0) +
      (f.country >= 0 && driver !== 'country' ? 1 : 0) +
      (f.categories && driver !== 'category' ? 1 : 0) +
      (f.hosts && driver !== 'host' ? 1 : 0) +
      ID_FILTERS.filter((key) => f.ids[key] >= 0 && driver !== key).length
    );
  }

  /** One past the last position first seen on or before `to` (positions run in first_seen order). */
  private end(to: number): number {
    return to === Infinity ? this.cols.n : lowerBound(this.cols.first, to + 1);
  }

  /**
   * The number of ads matching `filter` (landing_domain only when `servesHosts`), counting no further than
   * `bound`: the result is min(matches, bound). `bits` (every word's bitset ANDed) or `candidates` (row ids from
   * FTS) stand for the words. Alone, a posting list, the word bits or the candidates are counted
   * by their length; otherwise the shortest of them is walked, checking the rest, until `bound` matches.
   */
  count(filter: AdFilter, bound: number, bits: Uint32Array | null, candidates: number[] | null): number {
    const f = this.compile(filter);
    if (!f) return 0;
    const postings = this.shortestPostings(f);
    const driver = postings?.driver ?? null;
    const checksLeft = this.checksBeside(f, driver) > 0;
    if (!checksLeft) {
      // One source answers alone: its length is the count.
      if (postings && !bits && !candidates) return Math.min(bound, postings.list.length);
      if (!postings && bits) return Math.min(bound, popcount(bits));
      if (!postings && candidates) return Math.min(bound, candidates.length);
      if (!postings) return Math.min(bound, this.cols.n);
    }
    const [category] = f.categories?.size === 1 ? f.categories : [];
    if (f.country >= 0 && category !== undefined && !bits && !candidates && this.checksBeside(f, null) === 2) {
      return Math.min(bound, this.countryCategoryCount(f.country, category));
    }
    if (!postings && !bits && !candidates && this.checksBeside(f, null) === (f.from > -Infinity ? 1 : 0) + (f.to < Infinity ? 1 : 0)) {
      // Dates alone: active in [from, to] = first_seen <= to, minus those that ended before `from` (which all
      // started before it too).
      return Math.min(bound, this.end(f.to) - lowerBound(this.lastSorted(), f.from));
    }
    const matches = this.matcher(f, driver);
    const inWords = bits ? (p: number) => (at(bits, p >>> 5) & (1 << (p & 31))) !== 0 : candidates ? this.membership(candidates) : null;
    // Walked from the newest position: the ads active today are mostly the newest (at 1M, tiktok + active is 5 % of
    // the ads, and a walk from the oldest read nearly every position before its 10,001st match: 21 ms). A count that
    // stops at its bound stops sooner; one under its bound visits the same positions either way.
    let n = 0;
    if (postings) {
      const { list } = postings;
      const positionAt = positionsOf(list);
      for (let i = list.length - 1; i >= 0; i--) {
        const p = positionAt(i);
        if ((!inWords || inWords(p)) && matches(p) && ++n >= bound) return n;
      }
    } else if (bits) {
      for (let w = bits.length - 1; w >= 0; w--) {
        let word = at(bits, w);
        while (word !== 0) {
          const bit = 31 - Math.clz32(word);
          word = (word ^ (1 << bit)) >>> 0;
          if (matches(w * 32 + bit) && ++n >= bound) return n;
        }
      }
    } else if (candidates) {
      for (const rid of candidates) {
        const p = this.positionOf(rid);
        if (p >= 0 && matches(p) && ++n >= bound) return n;
      }
    } else {
      for (let p = this.end(f.to) - 1; p >= 0; p--) if (matches(p) && ++n >= bound) return n;
    }
    return n;
  }

  /** Ads in this country and this category (one pass over the columns on first use, then a lookup). */
  private countryCategoryCount(country: number, category: number): number {
    const c = this.cols;
    return at(this.pairCounts(), country * c.dicts.categories.length + category);
  }

  private countPairs(alloc: Alloc): Int32Array {
    const c = this.cols;
    const width = c.dicts.categories.length;
    const counts = alloc(Int32Array, c.dicts.countries.length * width);
    for (let p = 0; p < c.n; p++) {
      for (let i = at(c.countryOff, p), iEnd = at(c.countryOff, p + 1); i < iEnd; i++) {
        const row = at(c.countryVal, i) * width;
        for (let j = at(c.categoryOff, p), jEnd = at(c.categoryOff, p + 1); j < jEnd; j++) {
          const cell = row + at(c.categoryVal, j);
          counts[cell] = at(counts, cell) + 1;
        }
      }
    }
    return counts;
  }

  /**
   * Builds the indexes `previous` (the columns these were brought forward from) had built: a reader deriving its own
   * columns builds them while bringing them forward, not in each query that needs one first.
   */
  warmLike(previous: ColumnarAds): void {
    const built = previous.indexes();
    for (const [name, index] of this.indexes()) if (built.get(name)?.built()) index();
  }

  private indexes(): Map<string, Once<unknown>> {
    return new Map<string, Once<unknown>>([
      ['country', this.countryPostings],
      ['category', this.categoryPostings],
      ...Object.entries(this.idPostings),
      ['host', this.byHost],
      ['pairs', this.pairCounts],
      ['last', this.lastSorted],
      ...MOVING_SORTS.map((sort): [string, Once<unknown>] => [`order:${sort}`, this.sortOrders[sort]]),
    ]);
  }

  /** Position membership of FTS row ids, as a bitset over the positions. */
  private membership(rids: number[]): (p: number) => boolean {
    const bits = new Uint32Array((this.cols.n + 31) >>> 5);
    for (const rid of rids) {
      const p = this.positionOf(rid);
      if (p >= 0) bits[p >>> 5] = at(bits, p >>> 5) | (1 << (p & 31));
    }
    return (p) => (at(bits, p >>> 5) & (1 << (p & 31))) !== 0;
  }

  /**
   * Positions of the first `limit` matches in order, strictly after `after` (its sort value and id rank).
   * `candidates` (row ids, e.g. from FTS) narrows the scan; null scans every ad.
   */
  search(
    filter: AdFilter,
    sort: AdSort,
    order: SortOrder,
    limit: number,
    after: { value: string | number; idRank: number } | undefined,
    candidates: number[] | null,
    bits: Uint32Array | null = null,
  ): { positions: number[]; hasMore: boolean } {
    const c = this.cols;
    const f = this.compile(filter);
    if (!f) return { positions: [], hasMore: false };
    const postings = this.shortestPostings(f);
    // Walk the shortest source: a posting list (checking the word bits when there are some) or the word bits.
    const words = bits ? popcount(bits) : null;
    const walkBits = words !== null && (!postings || words < postings.list.length);
    const inBits = bits ? (p: number) => (at(bits, p >>> 5) & (1 << (p & 31))) !== 0 : null;
    const inWords = walkBits ? null : inBits;
    const driver = walkBits ? null : (postings?.driver ?? null);
    const filterMatches = this.matcher(f, driver);
    const matches = inWords ? (p: number) => inWords(p) && filterMatches(p) : filterMatches;
    const sign = order === 'desc' ? -1 : 1;
    const afterValue = after === undefined ? 0 : typeof after.value === 'string' ? dayNumber(after.value) : after.value;

    const k = limit + 1;
    const source = Math.min(this.end(f.to), (walkBits ? words : postings?.list.length) ?? Infinity, candidates?.length ?? Infinity);
    if (isMovingSort(sort) && this.walkOf(f, sort, limit, words ?? candidates?.length ?? null) < source) {
      const inCandidates = candidates ? this.membership(candidates) : null;
      const every = this.matcher(f, null);
      return this.walk(sort, order === 'desc', k, after && { value: afterValue, idRank: after.idRank }, (p) => (!inBits || inBits(p)) && (!inCandidates || inCandidates(p)) && every(p));
    }
    const best: { p: number; v: number; r: number }[] = [];
    // a precedes b in the requested order
    const precedes = (va: number, ra: number, vb: number, rb: number) => sign * (va - vb) < 0 || (va === vb && sign * (ra - rb) < 0);

    const consider = (p: number) => {
      // Once the page is full, most positions of a long list sort after its last row: one comparison of the
      // value rejects them before the filter checks (a top advertiser's 117k ads by impressions at 1M).
      if (best.length === k && sign * (this.sortValue(sort, p) - (best[k - 1]?.v ?? 0)) > 0) return;
      if (!matches(p)) return;
      const v = this.sortValue(sort, p);
      const r = at(c.idRank, p);
      if (after && !precedes(afterValue, after.idRank, v, r)) return;
      if (best.length === k) {
        const worst = best[k - 1];
        if (worst && !precedes(v, r, worst.v, worst.r)) return;
        best.pop();
      }
      let lo = 0;
      let hi = best.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const m = best[mid];
        if (m && precedes(m.v, m.r, v, r)) lo = mid + 1;
        else hi = mid;
      }
      best.splice(lo, 0, { p, v, r });
    };

    // Positions run in first_seen order, and in (first_seen, id) order up to c.sorted: sorted by date, once the page
    // is full a walk in position order stops at the first position no match from it on can enter (past
    // stopsAt); any other sort keeps the best k of every match.
    const inOrder = sort === 'date' && (walkBits || (postings?.ordered ?? true));
    const descending = inOrder && order === 'desc';
    const tailFirst = c.sorted < c.n ? at(c.first, c.sorted) : Infinity;
    const stopsAt = (p: number) => {
      const worst = best[k - 1];
      if (!inOrder || best.length < k || !worst) return false;
      const f = at(c.first, p);
      // A later day (an earlier one, walking down) than the page's last: so is every position after it.
      if (descending ? f < worst.v : f > worst.v) return true;
      // Within the sorted positions the walk meets (first_seen, id) in order: after the page's last, every one after
      // it is too; walking up, so are the tail's unless it starts on the page's last day.
      return p < c.sorted && !precedes(f, at(c.idRank, p), worst.v, worst.r) && (descending || tailFirst > worst.v);
    };
    let stopped = false;
    if (walkBits && bits) {
      for (let w = descending ? bits.length - 1 : 0; descending ? w >= 0 : w < bits.length; w += descending ? -1 : 1) {
        let word = at(bits, w);
        while (word !== 0) {
          const bit = descending ? 31 - Math.clz32(word) : 31 - Math.clz32(word & -word);
          word = (word ^ (1 << bit)) >>> 0;
          if (stopsAt(w * 32 + bit)) {
            stopped = true;
            break;
          }
          consider(w * 32 + bit);
        }
        if (stopped) break;
      }
    } else if (candidates && !postings) {
      for (const rid of candidates) {
        const p = this.positionOf(rid);
        if (p >= 0) consider(p);
      }
    } else {
      const list = postings?.list ?? null;
      const length = list ? list.length : this.end(f.to);
      const positionAt = list ? positionsOf(list) : (i: number) => i;
      const inCandidates = candidates ? this.membership(candidates) : null;
      for (let i = descending ? length - 1 : 0; descending ? i >= 0 : i < length; i += descending ? -1 : 1) {
        const p = positionAt(i);
        if (inCandidates && !inCandidates(p)) continue;
        if (stopsAt(p)) break;
        consider(p);
      }
    }
    return { positions: best.slice(0, limit).map((b) => b.p), hasMore: best.length > limit };
  }

  /** The next page in a moving sort's order, strictly after `after`: up to k - 1 matching positions, and whether a k-th follows. */
  private walk(sort: MovingSort, descending: boolean, k: number, after: { value: number; idRank: number } | undefined, matches: (p: number) => boolean) {
    const found: number[] = [];
    walkOrder(this.sortOrders[sort](), this.cols, sort, descending, after, (p) => {
      if (matches(p)) found.push(p);
      return found.length < k;
    });
    return { positions: found.slice(0, k - 1), hasMore: found.length === k };
  }
}

/** The hosts in sorted order (reversed hosts, by rank), over the dictionary by code. */
function sortedHosts(cols: AdColumns): SortedList<string> {
  const { hostsReversed: hosts } = cols.dicts;
  const order = cols.hostOrder;
  if (!order) return hosts;
  return { length: order.length, at: (rank) => hosts.at(at(order, rank)) };
}

/** Day numbers sorted ascending, by counting (they span a few hundred days): linear, where a comparison sort is not. */
function sortedDays(days: Int32Array, alloc: Alloc): Int32Array {
  const out = alloc(Int32Array, days.length);
  if (!days.length) return out;
  let min = Infinity;
  let max = -Infinity;
  for (const d of days) {
    if (d < min) min = d;
    if (d > max) max = d;
  }
  if (max - min > 4 * days.length) {
    out.set(days);
    return out.sort();
  }
  const counts = new Int32Array(max - min + 1);
  for (const d of days) counts[d - min] = at(counts, d - min) + 1;
  let to = 0;
  counts.forEach((count, k) => {
    out.fill(min + k, to, to + count);
    to += count;
  });
  return out;
}

/** The dictionaries whose values filters and live batches look codes up in. */
export const CODED_DICTIONARIES = ['platforms', 'countries', 'categories', 'advertiserIds', 'webmasterIds', 'appIds', 'creativeIds'] as const;
export type DictionaryCodes = Record<(typeof CODED_DICTIONARIES)[number], Map<string, number>>;

export function dictionaryCodes(dicts: AdColumns['dicts']): DictionaryCodes {
  const index = (values: string[]) => new Map(values.map((v, i) => [v, i]));
  return Object.fromEntries(CODED_DICTIONARIES.map((name) => [name, index(dicts[name])])) as DictionaryCodes;
}

/** ≈ µs per position visited (typed-array checks), against the SQL planner's ≈ 1 µs per index row. */
const COLUMN_VISIT_COST = 0.03;

const ID_FILTERS = ['advertiserId', 'webmasterId', 'appId', 'creativeId'] as const;
type IdFilter = (typeof ID_FILTERS)[number];
/** The filter whose posting list drives a scan (its check is then implied). */
type Driver = IdFilter | 'country' | 'category' | 'host';

interface Postings {
  driver: Driver;
  list: PositionList;
  /** Whether the positions ascend (a date-sorted walk may then stop after one page). */
  ordered: boolean;
}

interface CompiledFilter {
  /** landing_domain: the range of host ranks it matches. */
  hosts: { from: number; to: number } | null;
  /** Per id filter and country: -1 = no constraint, else the code. */
  ids: Record<IdFilter, number>;
  country: number;
  platforms: Set<number> | null;
  categories: Set<number> | null;
  /** -1 = any, 1 = active, 0 = inactive. */
  active: number;
  /** -1 = any, else the index in DESTINATION_TYPES. */
  destination: number;
  from: number;
  to: number;
}

function popcount(bits: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) {
    let v = at(bits, i);
    v = v - ((v >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

/** The number of values below `value` in an ascending list (an array, a typed array, a shared string list). */
export function lowerBound<T extends number | string>(sorted: SortedList<T>, value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted.at(mid) as T) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Positions grouped by key: key k's positions, ascending, are positions[offsets[k]..offsets[k + 1]) (a key past the
 * offsets has none there), then its entries in `tail`.
 */
export interface Grouped {
  positions: Int32Array;
  offsets: Int32Array;
  /**
   * The entries live tail batches added since the grouping was built (decisions/0020: a batch adds to this short list
   * instead of copying the grouping): keys ascending, positions ascending within a key and past every grouped one.
   */
  tail: GroupedTail | null;
}

export interface GroupedTail {
  keys: Int32Array;
  positions: Int32Array;
}

/**
 * Some keys' positions: those grouped, then the tail's (views, no copy). For one key the two ascend as one list; for a
 * range of keys each part is grouped by key.
 */
export interface PositionList {
  grouped: Int32Array;
  tail: Int32Array;
  length: number;
}

const NO_POSITIONS: PositionList = { grouped: new Int32Array(0), tail: new Int32Array(0), length: 0 };

/** The positions of keys [from, to). */
export function groupRange(g: Grouped, from: number, to: number): PositionList {
  const keys = g.offsets.length - 1;
  const grouped = g.positions.subarray(at(g.offsets, Math.min(from, keys)), at(g.offsets, Math.min(to, keys)));
  const tail = g.tail ? g.tail.positions.subarray(lowerBound(g.tail.keys, from), lowerBound(g.tail.keys, to)) : NO_POSITIONS.tail;
  return { grouped, tail, length: grouped.length + tail.length };
}

/** Key k's positions. */
function group(g: Grouped, k: number): PositionList {
  return groupRange(g, k, k + 1);
}

/** The i-th position of a list. */
function positionsOf({ grouped, tail }: PositionList): (i: number) => number {
  if (!tail.length) return (i) => at(grouped, i);
  return (i) => (i < grouped.length ? at(grouped, i) : at(tail, i - grouped.length));
}

/** A list as one array (a view when it has no tail part). */
function joined({ grouped, tail }: PositionList): Int32Array {
  if (!tail.length) return grouped;
  const out = new Int32Array(grouped.length + tail.length);
  out.set(grouped);
  out.set(tail, grouped.length);
  return out;
}

/** The indexes over one version of the columns: built once by the live writer and shared with every reader. */
export interface ColumnIndexes {
  posOfRid: Int32Array;
  country: Grouped;
  category: Grouped;
  advertiserId: Grouped;
  webmasterId: Grouped;
  appId: Grouped;
  creativeId: Grouped;
  host: Grouped | null;
  pairs: Int32Array;
  last: Int32Array;
  /** Built ones only when partial (a tail batch patches the ones its previous version had). */
  orders: Partial<SortOrders>;
}


/** A value computed on the first call and kept; `built()` says whether it was. */
type Once<T> = (() => T) & { built(): boolean };

function once<T>(make: () => T): Once<T> {
  let value: { v: T } | null = null;
  return Object.assign(() => (value ??= { v: make() }).v, { built: () => value !== null });
}
