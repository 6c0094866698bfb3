import type { Platform, TrendDimension } from '@adintel/contracts';
import type { TrendDetailData, TrendQuery, TrendResult, TrendRowData } from '../ad-store.port';
import { dayNumber, isoDate } from '../text';
import type { AdColumns } from './ad-columns';

const NO_MATCH = -2;
const ANY = -1;

function codeOf(values: string[], value: string | undefined): number {
  if (value === undefined) return ANY;
  const i = values.indexOf(value);
  return i < 0 ? NO_MATCH : i;
}

function contains(off: Int32Array, val: Uint16Array, i: number, code: number): boolean {
  for (let j = off[i] ?? 0, end = off[i + 1] ?? 0; j < end; j++) if (val[j] === code) return true;
  return false;
}

/**
 * Keys ranked by score desc, count desc, then key string asc. Numbers first: only the codes tied with
 * the limit-th one need the (slower) string comparison.
 */
function rankCodes(counts: Int32Array, keyOf: (code: number) => string, limit: number, score: (code: number) => number) {
  const codes: number[] = [];
  for (let c = 0; c < counts.length; c++) if (score(c) > 0) codes.push(c);
  const numeric = (a: number, b: number) => score(b) - score(a) || (counts[b] ?? 0) - (counts[a] ?? 0);
  codes.sort(numeric);
  const boundary = codes[Math.min(limit, codes.length) - 1];
  if (boundary === undefined) return [];
  let end = Math.min(limit, codes.length);
  while (end < codes.length && numeric(codes[end] ?? 0, boundary) === 0) end++;
  return codes
    .slice(0, end)
    .sort((a, b) => numeric(a, b) || (keyOf(a) < keyOf(b) ? -1 : 1))
    .slice(0, limit);
}

/**
 * Keeps in `latest` (oldest first) the `size` positions latest in (first_seen, id rank) order, with position `p` offered.
 * Positions come in first_seen order, but a live tail's ads of one day are not in id order (ADR 0018): a position is
 * placed by its day and id rank, not taken as the latest.
 */
function keepLatest(latest: number[], cols: AdColumns, p: number, size: number): void {
  const after = (a: number, b: number) => (cols.first[a] ?? 0) - (cols.first[b] ?? 0) || (cols.idRank[a] ?? 0) - (cols.idRank[b] ?? 0);
  let at = latest.length;
  while (at > 0 && after(latest[at - 1] ?? 0, p) > 0) at--;
  latest.splice(at, 0, p);
  if (latest.length > size) latest.shift();
}

const byCountDesc = (m: Map<number, number>, keyOf: (code: number) => string, limit: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1] || (keyOf(a[0]) < keyOf(b[0]) ? -1 : 1))
    .slice(0, limit)
    .map(([code]) => keyOf(code));

interface Detail {
  advertisers: Set<number>;
  advertiserCounts: Map<number, number>;
  categories: Map<number, number>;
  countries: Map<number, number>;
  platforms: Set<number>;
  creatives: Set<number>;
  active: number;
  /** The latest three ads in (first_seen, id) order, oldest first: positions while collecting, then row ids. */
  samples: number[];
}

const emptyDetail = (): Detail => ({
  advertisers: new Set(),
  advertiserCounts: new Map(),
  categories: new Map(),
  countries: new Map(),
  platforms: new Set(),
  creatives: new Set(),
  active: 0,
  samples: [],
});

const bump = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);

function bumpEach(m: Map<number, number>, off: Int32Array, val: Uint16Array, i: number) {
  for (let j = off[i] ?? 0, end = off[i + 1] ?? 0; j < end; j++) bump(m, val[j] ?? 0);
}

type RankedDimension = Exclude<TrendDimension, 'timeline'>;

/** How one ranked dimension keys, ranks and describes its rows (semantics: TrendRowData in ad-store.port.ts). */
interface DimensionRule {
  /** The key code of the ad at each position; null: the ad's countries (an ad counts once per country). */
  keyColumn: (cols: AdColumns) => Int32Array | null;
  keys: (dicts: AdColumns['dicts']) => string[];
  /** scaling-creatives ranks by growth over the previous window, every other dimension by ads. */
  rankByGrowth?: true;
  /** What the second pass gathers from one in-window ad of a selected key. */
  collect: (d: Detail, cols: AdColumns, i: number) => void;
  row: (code: number, key: string, d: Detail, dicts: AdColumns['dicts'], adIdsOf: (rids: number[]) => string[]) => {
    label: string;
    detail: TrendDetailData;
  };
}

const countryKey = (dicts: AdColumns['dicts']) => (c: number) => dicts.countries[c] ?? '';

const DIMENSIONS: Record<RankedDimension, DimensionRule> = {
  geo: {
    keyColumn: () => null,
    keys: (dicts) => dicts.countries,
    collect: (d, cols, i) => {
      d.advertisers.add(cols.advertiser[i] ?? 0);
      bumpEach(d.categories, cols.categoryOff, cols.categoryVal, i);
    },
    row: (_code, key, d, dicts) => ({
      label: key,
      detail: { advertisers: d.advertisers.size, top_categories: byCountDesc(d.categories, (c) => dicts.categories[c] ?? '', 3) },
    }),
  },
  'advertisers/cards': {
    keyColumn: (cols) => cols.advertiser,
    keys: (dicts) => dicts.advertiserIds,
    collect: (d, cols, i) => {
      d.advertisers.add(cols.advertiser[i] ?? 0);
      bumpEach(d.countries, cols.countryOff, cols.countryVal, i);
      d.platforms.add(cols.platform[i] ?? 0);
      d.creatives.add(cols.creative[i] ?? 0);
      d.active += cols.active[i] ?? 0;
      keepLatest(d.samples, cols, i, 3);
    },
    row: (code, key, d, dicts, adIdsOf) => {
      const name = dicts.advertiserNames[code] ?? key;
      return {
        label: name,
        detail: {
          name,
          platforms: [...d.platforms].map((p) => dicts.platforms[p] as Platform).sort(),
          active_ads: d.active,
          creatives: d.creatives.size,
          top_countries: byCountDesc(d.countries, countryKey(dicts), 3),
          sample_ad_ids: adIdsOf(d.samples.slice().reverse()),
        },
      };
    },
  },
  webmasters: {
    keyColumn: (cols) => cols.webmaster,
    keys: (dicts) => dicts.webmasterIds,
    collect: (d, cols, i) => {
      d.advertisers.add(cols.advertiser[i] ?? 0);
      bumpEach(d.countries, cols.countryOff, cols.countryVal, i);
    },
    row: (code, key, d, dicts) => ({
      label: dicts.webmasterNames[code] ?? key,
      detail: { dominant_country: byCountDesc(d.countries, countryKey(dicts), 1)[0] ?? null, advertisers: d.advertisers.size },
    }),
  },
  apps: {
    keyColumn: (cols) => cols.app,
    keys: (dicts) => dicts.appIds,
    collect: (d, cols, i) => {
      d.advertisers.add(cols.advertiser[i] ?? 0);
    },
    row: (code, key, d, dicts) => {
      const app = dicts.apps[code];
      return {
        label: app?.name ?? key,
        detail: { store: app?.store ?? 'app_store', bundle_id: app?.bundle_id ?? '', advertisers: d.advertisers.size },
      };
    },
  },
  'scaling-creatives': {
    keyColumn: (cols) => cols.creative,
    keys: (dicts) => dicts.creativeIds,
    rankByGrowth: true,
    collect: (d, cols, i) => {
      bump(d.advertiserCounts, cols.advertiser[i] ?? 0);
    },
    row: (code, key, d, dicts) => ({
      label: dicts.creativeTitles[code] ?? key,
      detail: {
        creative_format: dicts.creativeFormats[code] ?? 'image',
        advertiser_id: byCountDesc(d.advertiserCounts, (a) => dicts.advertiserIds[a] ?? '', 1)[0] ?? '',
      },
    }),
  },
};

/**
 * Answers a trend query from the columns. `adIdsOf` turns internal row ids into ad ids (for samples).
 * Semantics: see TrendResult in ad-store.port.ts.
 */
export function computeTrend(cols: AdColumns, query: TrendQuery, adIdsOf: (rids: number[]) => string[]): TrendResult {
  const { dicts } = cols;
  const wFrom = dayNumber(query.window.from);
  const wTo = dayNumber(query.window.to);
  const pFrom = dayNumber(query.previous.from);
  const pTo = dayNumber(query.previous.to);
  const platform = codeOf(dicts.platforms, query.filter.platform);
  const country = codeOf(dicts.countries, query.filter.country);
  const category = codeOf(dicts.categories, query.filter.category);
  const dimension = query.dimension;
  if (platform === NO_MATCH || country === NO_MATCH || category === NO_MATCH) {
    return { totalAds: 0, rows: dimension === 'timeline' ? timelineRows(wFrom, wTo, new Int32Array(0), null, null) : [] };
  }
  const rule = dimension === 'timeline' ? null : DIMENSIONS[dimension];
  const keyColumn = rule?.keyColumn(cols) ?? null;
  const keys = rule?.keys(dicts) ?? [];
  const cur = new Int32Array(keys.length);
  const prev = new Int32Array(keys.length);
  const days = Math.max(0, wTo - wFrom + 1);
  const activeDiff = rule ? null : new Int32Array(days + 1);
  const prevDiff = rule ? null : new Int32Array(days + 1);
  const newAds = rule ? null : new Int32Array(days);
  const matches = new Uint8Array(cols.n); // 1 = in window, 2 = in previous, 3 = both

  let totalAds = 0;
  const { first, last } = cols;
  for (let i = 0; i < cols.n; i++) {
    const f = first[i] ?? 0;
    const l = last[i] ?? 0;
    const inCur = f <= wTo && l >= wFrom;
    const inPrev = f <= pTo && l >= pFrom;
    if (!inCur && !inPrev) continue;
    if (platform >= 0 && cols.platform[i] !== platform) continue;
    if (country >= 0 && !contains(cols.countryOff, cols.countryVal, i, country)) continue;
    if (category >= 0 && !contains(cols.categoryOff, cols.categoryVal, i, category)) continue;
    matches[i] = (inCur ? 1 : 0) | (inPrev ? 2 : 0);
    if (inCur) totalAds++;
    if (keyColumn) {
      const k = keyColumn[i] ?? -1;
      if (k < 0) continue;
      if (inCur) cur[k] = (cur[k] ?? 0) + 1;
      if (inPrev) prev[k] = (prev[k] ?? 0) + 1;
    } else if (rule) {
      for (let j = cols.countryOff[i] ?? 0, end = cols.countryOff[i + 1] ?? 0; j < end; j++) {
        const k = cols.countryVal[j] ?? 0;
        if (country >= 0 && k !== country) continue;
        if (inCur) cur[k] = (cur[k] ?? 0) + 1;
        if (inPrev) prev[k] = (prev[k] ?? 0) + 1;
      }
    } else if (activeDiff && prevDiff && newAds) {
      // Previous-window day d - days maps onto window day d.
      if (inCur) {
        activeDiff[Math.max(f, wFrom) - wFrom] = (activeDiff[Math.max(f, wFrom) - wFrom] ?? 0) + 1;
        activeDiff[Math.min(l, wTo) - wFrom + 1] = (activeDiff[Math.min(l, wTo) - wFrom + 1] ?? 0) - 1;
        if (f >= wFrom) newAds[f - wFrom] = (newAds[f - wFrom] ?? 0) + 1;
      }
      if (inPrev) {
        prevDiff[Math.max(f, pFrom) - pFrom] = (prevDiff[Math.max(f, pFrom) - pFrom] ?? 0) + 1;
        prevDiff[Math.min(l, pTo) - pFrom + 1] = (prevDiff[Math.min(l, pTo) - pFrom + 1] ?? 0) - 1;
      }
    }
  }

  if (!rule) return { totalAds, rows: timelineRows(wFrom, wTo, newAds ?? new Int32Array(0), activeDiff, prevDiff) };

  const keyOf = (code: number): string => keys[code] ?? '';
  const score = rule.rankByGrowth ? (c: number) => (cur[c] ?? 0) - (prev[c] ?? 0) : (c: number) => cur[c] ?? 0;
  const top = rankCodes(cur, keyOf, query.limit, score);
  const details = collectDetails(cols, rule, matches, top, keyColumn);
  const rows: TrendRowData[] = top.map((code) => {
    const key = keyOf(code);
    return { key, ads: cur[code] ?? 0, previousAds: prev[code] ?? 0, ...rule.row(code, key, details.get(code) ?? emptyDetail(), dicts, adIdsOf) };
  });
  return { totalAds, rows };
}

function timelineRows(
  wFrom: number,
  wTo: number,
  newAds: Int32Array,
  activeDiff: Int32Array | null,
  prevDiff: Int32Array | null,
): TrendRowData[] {
  const rows: TrendRowData[] = [];
  let active = 0;
  let previous = 0;
  for (let d = 0; d <= wTo - wFrom; d++) {
    active += activeDiff?.[d] ?? 0;
    previous += prevDiff?.[d] ?? 0;
    const date = isoDate(wFrom + d);
    rows.push({
      key: date,
      label: date,
      ads: active,
      previousAds: previous,
      detail: { date, new_ads: newAds[d] ?? 0, active_ads: active },
    });
  }
  return rows;
}

/** Second pass over the in-window ads of the selected keys only. */
function collectDetails(
  cols: AdColumns,
  rule: DimensionRule,
  matches: Uint8Array,
  top: number[],
  keyColumn: Int32Array | null,
): Map<number, Detail> {
  const details = new Map<number, Detail>(top.map((code) => [code, emptyDetail()]));
  for (let i = 0; i < cols.n; i++) {
    if (((matches[i] ?? 0) & 1) === 0) continue;
    if (keyColumn) {
      const d = details.get(keyColumn[i] ?? -1);
      if (d) rule.collect(d, cols, i);
    } else {
      for (let j = cols.countryOff[i] ?? 0, end = cols.countryOff[i + 1] ?? 0; j < end; j++) {
        const d = details.get(cols.countryVal[j] ?? -1);
        if (d) rule.collect(d, cols, i);
      }
    }
  }
  for (const d of details.values()) d.samples = d.samples.map((p) => cols.rid[p] ?? 0);
  return details;
}
