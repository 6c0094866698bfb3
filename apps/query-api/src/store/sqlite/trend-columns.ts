import type { AppStore, CreativeFormat, Platform } from '@adintel/contracts';
import type { TrendQuery, TrendResult, TrendRowData } from '../ad-store.port';
import { dayNumber, isoDate } from '../text';

/**
 * The trend rollup: every ad dictionary-encoded into typed arrays (ordered by first_seen_date, id),
 * built at ingest and stored as BLOBs. A worker loads them once and answers any trend, with any
 * filter combination and any window, by scanning them: exact counts with no GROUP BY at query time.
 */
export interface TrendColumns {
  n: number;
  rid: Int32Array;
  /** Sort values and the id tiebreaker (rank of the id in id order), for the columnar ad search. */
  activity: Int32Array;
  popularity: Float64Array;
  impressions: Float64Array;
  idRank: Int32Array;
  first: Int32Array;
  last: Int32Array;
  platform: Uint8Array;
  active: Uint8Array;
  advertiser: Int32Array;
  webmaster: Int32Array;
  app: Int32Array;
  creative: Int32Array;
  countryOff: Int32Array;
  countryVal: Uint16Array;
  categoryOff: Int32Array;
  categoryVal: Uint16Array;
  dicts: {
    platforms: string[];
    countries: string[];
    categories: string[];
    advertiserIds: string[];
    webmasterIds: string[];
    appIds: string[];
    creativeIds: string[];
    advertiserNames: string[];
    webmasterNames: string[];
    apps: { name: string; store: AppStore; bundle_id: string }[];
    creativeTitles: string[];
    creativeFormats: CreativeFormat[];
  };
}

/** Rows of trend_columns named with this prefix hold one word's bitset (see writeWordBits), not a column. */
export const WORD_BITS_PREFIX = 'word:';

const ARRAY_COLUMNS = [
  'rid',
  'activity',
  'popularity',
  'impressions',
  'idRank',
  'first',
  'last',
  'platform',
  'active',
  'advertiser',
  'webmaster',
  'app',
  'creative',
  'countryOff',
  'countryVal',
  'categoryOff',
  'categoryVal',
] as const;
type ArrayColumn = (typeof ARRAY_COLUMNS)[number];

export function encodeTrendColumns(columns: TrendColumns): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = ARRAY_COLUMNS.map((name) => {
    const array = columns[name];
    return [name, new Uint8Array(array.buffer, array.byteOffset, array.byteLength)];
  });
  out.push(['dicts', new TextEncoder().encode(JSON.stringify({ n: columns.n, ...columns.dicts }))]);
  return out;
}

export function decodeTrendColumns(blobs: Map<string, Uint8Array>): TrendColumns | null {
  const dictsBlob = blobs.get('dicts');
  if (!dictsBlob) return null;
  const { n, ...dicts } = JSON.parse(new TextDecoder().decode(dictsBlob)) as TrendColumns['dicts'] & { n: number };
  const copy = (name: ArrayColumn) => {
    const blob = blobs.get(name) ?? new Uint8Array(0);
    const bytes = new Uint8Array(blob.byteLength);
    bytes.set(blob);
    return bytes.buffer;
  };
  return {
    n,
    rid: new Int32Array(copy('rid')),
    activity: new Int32Array(copy('activity')),
    popularity: new Float64Array(copy('popularity')),
    impressions: new Float64Array(copy('impressions')),
    idRank: new Int32Array(copy('idRank')),
    first: new Int32Array(copy('first')),
    last: new Int32Array(copy('last')),
    platform: new Uint8Array(copy('platform')),
    active: new Uint8Array(copy('active')),
    advertiser: new Int32Array(copy('advertiser')),
    webmaster: new Int32Array(copy('webmaster')),
    app: new Int32Array(copy('app')),
    creative: new Int32Array(copy('creative')),
    countryOff: new Int32Array(copy('countryOff')),
    countryVal: new Uint16Array(copy('countryVal')),
    categoryOff: new Int32Array(copy('categoryOff')),
    categoryVal: new Uint16Array(copy('categoryVal')),
    dicts,
  };
}

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

const byCountDesc = (m: Map<number, number>, keyOf: (code: number) => string, limit: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1] || (keyOf(a[0]) < keyOf(b[0]) ? -1 : 1))
    .slice(0, limit)
    .map(([code]) => keyOf(code));

/**
 * Answers a trend query from the columns. `adIdsOf` turns internal row ids into ad ids (for samples).
 * Semantics: see TrendResult in ad-store.port.ts.
 */
export function computeTrend(cols: TrendColumns, query: TrendQuery, adIdsOf: (rids: number[]) => string[]): TrendResult {
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

  const keyColumn =
    dimension === 'advertisers/cards'
      ? cols.advertiser
      : dimension === 'webmasters'
        ? cols.webmaster
        : dimension === 'apps'
          ? cols.app
          : dimension === 'scaling-creatives'
            ? cols.creative
            : null;
  const keyCount =
    dimension === 'geo'
      ? dicts.countries.length
      : dimension === 'advertisers/cards'
        ? dicts.advertiserIds.length
        : dimension === 'webmasters'
          ? dicts.webmasterIds.length
          : dimension === 'apps'
            ? dicts.appIds.length
            : dimension === 'scaling-creatives'
              ? dicts.creativeIds.length
              : 0;
  const cur = new Int32Array(keyCount);
  const prev = new Int32Array(keyCount);
  const days = Math.max(0, wTo - wFrom + 1);
  const timeline = dimension === 'timeline';
  const activeDiff = timeline ? new Int32Array(days + 1) : null;
  const prevDiff = timeline ? new Int32Array(days + 1) : null;
  const newAds = timeline ? new Int32Array(days) : null;
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
    } else if (dimension === 'geo') {
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

  if (timeline) return { totalAds, rows: timelineRows(wFrom, wTo, newAds ?? new Int32Array(0), activeDiff, prevDiff) };

  const keyOf = (code: number): string =>
    (dimension === 'geo'
      ? dicts.countries[code]
      : dimension === 'advertisers/cards'
        ? dicts.advertiserIds[code]
        : dimension === 'webmasters'
          ? dicts.webmasterIds[code]
          : dimension === 'apps'
            ? dicts.appIds[code]
            : dicts.creativeIds[code]) ?? '';
  const score =
    dimension === 'scaling-creatives' ? (c: number) => (cur[c] ?? 0) - (prev[c] ?? 0) : (c: number) => cur[c] ?? 0;
  const top = rankCodes(cur, keyOf, query.limit, score);
  const details = collectDetails(cols, query, matches, top, keyColumn);
  const rows: TrendRowData[] = top.map((code) => {
    const d = details.get(code) ?? emptyDetail();
    const base = { key: keyOf(code), ads: cur[code] ?? 0, previousAds: prev[code] ?? 0 };
    const countryKey = (c: number) => dicts.countries[c] ?? '';
    switch (dimension) {
      case 'geo':
        return {
          ...base,
          label: base.key,
          detail: { advertisers: d.advertisers.size, top_categories: byCountDesc(d.categories, (c) => dicts.categories[c] ?? '', 3) },
        };
      case 'advertisers/cards':
        return {
          ...base,
          label: dicts.advertiserNames[code] ?? base.key,
          detail: {
            name: dicts.advertiserNames[code] ?? base.key,
            platforms: [...d.platforms].map((p) => dicts.platforms[p] as Platform).sort(),
            active_ads: d.active,
            creatives: d.creatives.size,
            top_countries: byCountDesc(d.countries, countryKey, 3),
            sample_ad_ids: adIdsOf(d.samples.slice().reverse()),
          },
        };
      case 'webmasters':
        return {
          ...base,
          label: dicts.webmasterNames[code] ?? base.key,
          detail: { dominant_country: byCountDesc(d.countries, countryKey, 1)[0] ?? null, advertisers: d.advertisers.size },
        };
      case 'apps': {
        const app = dicts.apps[code];
        return {
          ...base,
          label: app?.name ?? base.key,
          detail: { store: app?.store ?? 'app_store', bundle_id: app?.bundle_id ?? '', advertisers: d.advertisers.size },
        };
      }
      default:
        return {
          ...base,
          label: dicts.creativeTitles[code] ?? base.key,
          detail: {
            creative_format: dicts.creativeFormats[code] ?? 'image',
            advertiser_id: byCountDesc(d.advertiserCounts, (a) => dicts.advertiserIds[a] ?? '', 1)[0] ?? '',
          },
        };
    }
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

interface Detail {
  advertisers: Set<number>;
  advertiserCounts: Map<number, number>;
  categories: Map<number, number>;
  countries: Map<number, number>;
  platforms: Set<number>;
  creatives: Set<number>;
  active: number;
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

/** Second pass over the in-window ads of the selected keys only. */
function collectDetails(
  cols: TrendColumns,
  query: TrendQuery,
  matches: Uint8Array,
  top: number[],
  keyColumn: Int32Array | null,
): Map<number, Detail> {
  const details = new Map<number, Detail>(top.map((code) => [code, emptyDetail()]));
  const geo = query.dimension === 'geo';
  const bump = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);
  for (let i = 0; i < cols.n; i++) {
    if (((matches[i] ?? 0) & 1) === 0) continue;
    const targets: Detail[] = [];
    if (keyColumn) {
      const d = details.get(keyColumn[i] ?? -1);
      if (d) targets.push(d);
    } else if (geo) {
      for (let j = cols.countryOff[i] ?? 0, end = cols.countryOff[i + 1] ?? 0; j < end; j++) {
        const d = details.get(cols.countryVal[j] ?? -1);
        if (d) targets.push(d);
      }
    }
    const dim = query.dimension;
    for (const d of targets) {
      const advertiser = cols.advertiser[i] ?? 0;
      if (dim !== 'scaling-creatives') d.advertisers.add(advertiser);
      if (dim === 'scaling-creatives') bump(d.advertiserCounts, advertiser);
      if (dim === 'geo') {
        for (let j = cols.categoryOff[i] ?? 0, end = cols.categoryOff[i + 1] ?? 0; j < end; j++) bump(d.categories, cols.categoryVal[j] ?? 0);
      }
      if (dim === 'advertisers/cards' || dim === 'webmasters') {
        for (let j = cols.countryOff[i] ?? 0, end = cols.countryOff[i + 1] ?? 0; j < end; j++) bump(d.countries, cols.countryVal[j] ?? 0);
      }
      if (dim === 'advertisers/cards') {
        d.platforms.add(cols.platform[i] ?? 0);
        d.creatives.add(cols.creative[i] ?? 0);
        d.active += cols.active[i] ?? 0;
        // Rows are in (first_seen, id) order: the last three seen are the most recent.
        d.samples.push(cols.rid[i] ?? 0);
        if (d.samples.length > 3) d.samples.shift();
      }
    }
  }
  return details;
}
