import type { AdSort, SortOrder } from '@adintel/contracts';
import type { AdFilter } from '../ad-store.port';
import { dayNumber } from '../text';
import type { AdColumns } from './ad-columns';

/**
 * Ad search over the in-memory columns, for filter combinations no single index serves well
 * (e.g. country + category + status, or a mid-frequency word): one pass over the candidates with
 * typed-array checks and a bounded top-k on (sort value, id rank). Not for landing_domain.
 */
export class ColumnarAds {
  private readonly posOfRid: Int32Array;
  /** Positions per country / category code, ascending: a scan visits only one value's ads. */
  private readonly countryPostings: Int32Array[];
  private readonly categoryPostings: Int32Array[];
  private readonly codes: Record<'platforms' | 'countries' | 'categories' | 'advertiserIds' | 'webmasterIds' | 'appIds' | 'creativeIds', Map<string, number>>;

  constructor(readonly cols: AdColumns) {
    let maxRid = 0;
    for (let i = 0; i < cols.n; i++) maxRid = Math.max(maxRid, cols.rid[i] ?? 0);
    this.posOfRid = new Int32Array(maxRid + 1).fill(-1);
    for (let i = 0; i < cols.n; i++) this.posOfRid[cols.rid[i] ?? 0] = i;
    this.countryPostings = ColumnarAds.postings(cols.countryOff, cols.countryVal, cols.n, cols.dicts.countries.length);
    this.categoryPostings = ColumnarAds.postings(cols.categoryOff, cols.categoryVal, cols.n, cols.dicts.categories.length);
    const index = (values: string[]) => new Map(values.map((v, i) => [v, i]));
    const d = cols.dicts;
    this.codes = {
      platforms: index(d.platforms),
      countries: index(d.countries),
      categories: index(d.categories),
      advertiserIds: index(d.advertiserIds),
      webmasterIds: index(d.webmasterIds),
      appIds: index(d.appIds),
      creativeIds: index(d.creativeIds),
    };
  }

  private static postings(offsets: Int32Array, values: Uint16Array, n: number, size: number): Int32Array[] {
    const counts = new Int32Array(size);
    for (let j = 0; j < values.length; j++) {
      const v = values[j] ?? 0;
      counts[v] = (counts[v] ?? 0) + 1;
    }
    const lists = Array.from(counts, (count) => new Int32Array(count));
    const fill = new Int32Array(size);
    for (let p = 0; p < n; p++) {
      for (let j = offsets[p] ?? 0, end = offsets[p + 1] ?? 0; j < end; j++) {
        const v = values[j] ?? 0;
        const list = lists[v];
        const at = fill[v] ?? 0;
        if (list) list[at] = p;
        fill[v] = at + 1;
      }
    }
    return lists;
  }

  /** The positions of one country's ads, or of one category's (the shorter), when those filters are set. */
  private narrowest(country: number, categories: Set<number> | null): Int32Array | null {
    let best: Int32Array | null = null;
    if (country >= 0) {
      best = this.countryPostings[country] ?? new Int32Array(0);
    }
    if (categories?.size === 1) {
      const [category] = categories;
      const list = (category === undefined ? undefined : this.categoryPostings[category]) ?? new Int32Array(0);
      if (!best || list.length < best.length) best = list;
    }
    return best;
  }

  positionOf(rid: number): number {
    return this.posOfRid[rid] ?? -1;
  }

  sortValue(sort: AdSort, p: number): number {
    const c = this.cols;
    switch (sort) {
      case 'date':
        return c.first[p] ?? 0;
      case 'days_active':
        return (c.last[p] ?? 0) - (c.first[p] ?? 0);
      case 'activity_days_amount':
        return c.activity[p] ?? 0;
      case 'most_popular':
        return c.popularity[p] ?? 0;
      case 'impressions':
        return c.impressions[p] ?? 0;
    }
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
    const code = (dict: keyof ColumnarAds['codes'], value: string | undefined) =>
      value === undefined ? -1 : (this.codes[dict].get(value) ?? -2);
    const advertiser = code('advertiserIds', filter.advertiserId);
    const webmaster = code('webmasterIds', filter.webmasterId);
    const app = code('appIds', filter.appId);
    const creative = code('creativeIds', filter.creativeId);
    const country = code('countries', filter.country);
    const platforms = filter.platforms ? new Set(filter.platforms.map((p) => this.codes.platforms.get(p) ?? -2)) : null;
    const categories = filter.categories ? new Set(filter.categories.map((x) => this.codes.categories.get(x) ?? -2)) : null;
    if ([advertiser, webmaster, app, creative, country].includes(-2)) return { positions: [], hasMore: false };
    const active = filter.status === undefined ? -1 : filter.status === 'active' ? 1 : 0;
    const from = filter.dateFrom ? dayNumber(filter.dateFrom) : -Infinity;
    const to = filter.dateTo ? dayNumber(filter.dateTo) : Infinity;
    const sign = order === 'desc' ? -1 : 1;
    const afterValue = after === undefined ? 0 : typeof after.value === 'string' ? dayNumber(after.value) : after.value;

    const k = limit + 1;
    const best: { p: number; v: number; r: number }[] = [];
    // a precedes b in the requested order
    const precedes = (va: number, ra: number, vb: number, rb: number) => sign * (va - vb) < 0 || (va === vb && sign * (ra - rb) < 0);

    const consider = (p: number) => {
      if (platforms && !platforms.has(c.platform[p] ?? -3)) return;
      if (active >= 0 && c.active[p] !== active) return;
      if (advertiser >= 0 && c.advertiser[p] !== advertiser) return;
      if (webmaster >= 0 && c.webmaster[p] !== webmaster) return;
      if (app >= 0 && c.app[p] !== app) return;
      if (creative >= 0 && c.creative[p] !== creative) return;
      if ((c.last[p] ?? 0) < from || (c.first[p] ?? 0) > to) return;
      if (country >= 0) {
        let found = false;
        for (let j = c.countryOff[p] ?? 0, end = c.countryOff[p + 1] ?? 0; j < end && !found; j++) found = c.countryVal[j] === country;
        if (!found) return;
      }
      if (categories) {
        let found = false;
        for (let j = c.categoryOff[p] ?? 0, end = c.categoryOff[p + 1] ?? 0; j < end && !found; j++) found = categories.has(c.categoryVal[j] ?? -3);
        if (!found) return;
      }
      const v = this.sortValue(sort, p);
      const r = c.idRank[p] ?? 0;
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

    if (bits) {
      // Positions run in (first_seen, id) order: sorted by date, the first k matches in that order are the page.
      const inOrder = sort === 'date';
      const descending = inOrder && order === 'desc';
      const done = () => inOrder && best.length === k;
      for (let w = descending ? bits.length - 1 : 0; descending ? w >= 0 : w < bits.length; w += descending ? -1 : 1) {
        let word = bits[w] ?? 0;
        while (word !== 0) {
          const bit = descending ? 31 - Math.clz32(word) : 31 - Math.clz32(word & -word);
          word = (word ^ (1 << bit)) >>> 0;
          consider(w * 32 + bit);
          if (done()) break;
        }
        if (done()) break;
      }
    } else if (candidates) {
      for (const rid of candidates) {
        const p = this.positionOf(rid);
        if (p >= 0) consider(p);
      }
    } else {
      const positions = this.narrowest(country, categories);
      if (positions) for (let i = 0; i < positions.length; i++) consider(positions[i] ?? 0);
      else for (let p = 0; p < c.n; p++) consider(p);
    }
    return { positions: best.slice(0, limit).map((b) => b.p), hasMore: best.length > limit };
  }
}
