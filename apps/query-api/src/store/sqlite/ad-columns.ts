import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { DESTINATION_TYPES, type AppStore, type CreativeFormat, type DestinationType, type Platform } from '@adintel/contracts';
import { dayNumber } from '../text';
import { type Alloc, localAlloc } from './typed-alloc';

/**
 * The ad columns: every ad dictionary-encoded into typed arrays, one position per ad in (first_seen_date, id)
 * order, built at finish() and stored as BLOBs in the `trend_columns` table (named after their first use).
 * A reader loads them once per data generation; the trend scan (trend-scan.ts), the columnar ad search and
 * the counts (columnar-search.ts) all read them. Word bitsets (see writeWordBits) index the same positions.
 *
 * Live batches append new ads of the newest day at the end (ADR 0018), whatever their ids: positions are then in
 * first_seen order throughout, and in (first_seen, id) order up to `sorted` only.
 */
export interface AdColumns {
  n: number;
  /**
   * Positions [0, sorted) run in (first_seen, id rank) order; the rest in first_seen order only (a live tail of new
   * ads, in the order they came). A date-sorted walk that reaches them reads to the end of its last match's day.
   */
  sorted: number;
  rid: Int32Array;
  /** Sort values and the id tiebreaker (the id's rank in id order: only their order counts, id-ranks.ts), for the columnar ad search. */
  activity: Int32Array;
  popularity: Float64Array;
  impressions: Float64Array;
  idRank: Int32Array;
  first: Int32Array;
  last: Int32Array;
  platform: Uint8Array;
  active: Uint8Array;
  /** Index of the ad's destination type in DESTINATION_TYPES (a closed list: no dictionary). */
  destination: Uint8Array;
  advertiser: Int32Array;
  webmaster: Int32Array;
  app: Int32Array;
  creative: Int32Array;
  countryOff: Int32Array;
  countryVal: Uint16Array;
  categoryOff: Int32Array;
  categoryVal: Uint16Array;
  /**
   * Landing host per position, as its code in `dicts.hostsReversed` (reversed hosts, in the order they came: codes never
   * change, so a live batch's new host moves no stored value). Null in stores built before it existed.
   */
  host: Int32Array | null;
  /**
   * The hosts' sorted order: `hostOrder[rank]` is the code of the rank-th host (reversed hosts sorted: a domain and its
   * subdomains are one range of ranks, as in the SQL `host_rev` index), `hostRank[code]` its rank. Null with `host`.
   */
  hostOrder: Int32Array | null;
  hostRank: Int32Array | null;
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
    /**
     * Every landing host, reversed (reverseHost in text.ts), by code (an array, or a list in shared memory:
     * shared-columns.ts); `hostOrder` sorts them. Stored sorted (codes = ranks), as before ADR 0018.
     */
    hostsReversed: SortedList<string>;
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
  'destination',
  'advertiser',
  'webmaster',
  'app',
  'creative',
  'countryOff',
  'countryVal',
  'categoryOff',
  'categoryVal',
  'host',
] as const;
type ArrayColumn = (typeof ARRAY_COLUMNS)[number];

/**
 * The columns as stored: hosts as ranks in the sorted list of hosts (the stored form has codes = ranks, so a store
 * written before ADR 0018 reads the same), `sorted` beside the dictionaries.
 */
export function encodeAdColumns(columns: AdColumns): [string, Uint8Array][] {
  const { host, hostOrder, hostRank } = columns;
  const ranked = host && hostRank ? Int32Array.from(host, (code) => hostRank[code] ?? 0) : null;
  const out: [string, Uint8Array][] = ARRAY_COLUMNS.map((name) => {
    const array = (name === 'host' ? ranked : columns[name]) ?? new Int32Array(0);
    return [name, new Uint8Array(array.buffer, array.byteOffset, array.byteLength)];
  });
  const hosts = columns.dicts.hostsReversed;
  const hostsReversed = Array.from({ length: hosts.length }, (_, rank) => hosts.at(hostOrder ? (hostOrder[rank] ?? 0) : rank) ?? '');
  out.push(['dicts', new TextEncoder().encode(JSON.stringify({ n: columns.n, sorted: columns.sorted, ...columns.dicts, hostsReversed }))]);
  return out;
}

/** The identity order of `size` hosts (stored columns, and a fresh build, have codes = ranks). */
export function identityOrder(size: number, alloc: Alloc = localAlloc): Int32Array {
  const order = alloc(Int32Array, size);
  for (let i = 0; i < size; i++) order[i] = i;
  return order;
}

/** `alloc`: where the columns live (shared memory for the live writer, which publishes them: shared-columns.ts). */
export function decodeAdColumns(blobs: Map<string, Uint8Array>, alloc: Alloc = localAlloc): AdColumns | null {
  const dictsBlob = blobs.get('dicts');
  if (!dictsBlob) return null;
  const { n, sorted, ...stored } = JSON.parse(new TextDecoder().decode(dictsBlob)) as Partial<AdColumns['dicts']> &
    Omit<AdColumns['dicts'], 'hostsReversed'> & { n: number; sorted?: number };
  const dicts: AdColumns['dicts'] = { ...stored, hostsReversed: stored.hostsReversed ?? [] };
  const copy = (name: ArrayColumn) => {
    const blob = blobs.get(name) ?? new Uint8Array(0);
    const bytes = alloc(Uint8Array, blob.byteLength);
    bytes.set(blob);
    return bytes.buffer;
  };
  const host = blobs.has('host') && stored.hostsReversed ? new Int32Array(copy('host')) : null;
  return {
    n,
    sorted: sorted ?? n,
    rid: new Int32Array(copy('rid')),
    activity: new Int32Array(copy('activity')),
    popularity: new Float64Array(copy('popularity')),
    impressions: new Float64Array(copy('impressions')),
    idRank: new Int32Array(copy('idRank')),
    first: new Int32Array(copy('first')),
    last: new Int32Array(copy('last')),
    platform: new Uint8Array(copy('platform')),
    active: new Uint8Array(copy('active')),
    destination: new Uint8Array(copy('destination')),
    advertiser: new Int32Array(copy('advertiser')),
    webmaster: new Int32Array(copy('webmaster')),
    app: new Int32Array(copy('app')),
    creative: new Int32Array(copy('creative')),
    countryOff: new Int32Array(copy('countryOff')),
    countryVal: new Uint16Array(copy('countryVal')),
    categoryOff: new Int32Array(copy('categoryOff')),
    categoryVal: new Uint16Array(copy('categoryVal')),
    host,
    hostOrder: host && identityOrder(dicts.hostsReversed.length, alloc),
    hostRank: host && identityOrder(dicts.hostsReversed.length, alloc),
    dicts,
  };
}

/** What the builder reads of one ad (a row of the finish() scan). */
export interface ColumnSource {
  rid: number;
  activity_days: number;
  popularity: number;
  impressions: number;
  platform: Platform;
  advertiser_id: string;
  webmaster_id: string | null;
  app_id: string | null;
  creative_id: string;
  first_seen: string;
  last_seen: string;
  creative_format: CreativeFormat;
  destination: DestinationType;
  advertiser_name: string;
  webmaster_name: string | null;
  app_doc: string | null;
  creative_title: string;
  host_rev: string;
}

/**
 * For every word in between `wordBitsMinShare` and `wordBitsMaxShare` of the ads: one bit per column position (ads in first_seen, id order).
 * A query on such a word then neither fetches tens of thousands of FTS row ids nor probes FTS per row: it walks
 * the set bits, in date order when sorted by date (stopping after one page).
 */
export function writeWordBits(db: DatabaseSync, cols: AdColumns, insert: StatementSync, shares: { wordBitsMinShare: number; wordBitsMaxShare: number }): void {
  if (cols.n === 0 || shares.wordBitsMinShare > shares.wordBitsMaxShare) return;
  let maxRid = 0;
  for (let p = 0; p < cols.n; p++) maxRid = Math.max(maxRid, cols.rid[p] ?? 0);
  const positionOf = new Int32Array(maxRid + 1).fill(-1);
  for (let p = 0; p < cols.n; p++) positionOf[cols.rid[p] ?? 0] = p;
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.ads_vocab USING fts5vocab(main, ads_fts, row)');
  const terms = db
    .prepare('SELECT term FROM temp.ads_vocab WHERE doc BETWEEN ? AND ?')
    .all(Math.max(1, Math.ceil(cols.n * shares.wordBitsMinShare)), Math.floor(cols.n * shares.wordBitsMaxShare)) as { term: string }[];
  const match = db.prepare('SELECT rowid FROM ads_fts WHERE ads_fts MATCH ?');
  match.setReturnArrays(true);
  for (const { term } of terms) {
    const bits = new Uint32Array((cols.n + 31) >>> 5);
    for (const row of match.iterate(`"${term.replaceAll('"', '""')}"`) as unknown as Iterable<[number]>) {
      const p = positionOf[row[0]] ?? -1;
      if (p >= 0) bits[p >>> 5] = (bits[p >>> 5] ?? 0) | (1 << (p & 31));
    }
    insert.run(WORD_BITS_PREFIX + term, new Uint8Array(bits.buffer));
  }
  db.exec('DROP TABLE IF EXISTS temp.ads_vocab');
}

/** Dictionary-encodes the ads (read in any order, ordered by first_seen, id at build()) into the columns. */
export class AdColumnsBuilder {
  private readonly dict = {
    platforms: new Map<string, number>(),
    countries: new Map<string, number>(),
    categories: new Map<string, number>(),
    advertisers: new Map<string, number>(),
    webmasters: new Map<string, number>(),
    apps: new Map<string, number>(),
    creatives: new Map<string, number>(),
  };
  private readonly names = {
    advertiserNames: [] as string[],
    webmasterNames: [] as string[],
    apps: [] as { name: string; store: AppStore; bundle_id: string }[],
    creativeTitles: [] as string[],
    creativeFormats: [] as CreativeFormat[],
  };
  private readonly rid: number[] = [];
  private readonly activity: number[] = [];
  private readonly popularity: number[] = [];
  private readonly impressions: number[] = [];
  private idRank = new Int32Array(0);
  private readonly first: number[] = [];
  private readonly last: number[] = [];
  private readonly platform: number[] = [];
  private readonly active: number[] = [];
  private readonly destination: number[] = [];
  private readonly advertiser: number[] = [];
  private readonly webmaster: number[] = [];
  private readonly app: number[] = [];
  private readonly creative: number[] = [];
  private readonly countryOff: number[] = [0];
  private readonly countryVal: number[] = [];
  private readonly categoryOff: number[] = [0];
  private readonly categoryVal: number[] = [];
  private readonly hostRev: string[] = [];

  add(ad: ColumnSource, countries: string[], categories: string[], active: number) {
    const code = (map: Map<string, number>, key: string, onNew?: () => void) => {
      let i = map.get(key);
      if (i === undefined) {
        map.set(key, (i = map.size));
        onNew?.();
      }
      return i;
    };
    this.rid.push(ad.rid);
    this.activity.push(ad.activity_days);
    this.popularity.push(ad.popularity);
    this.impressions.push(ad.impressions);
    this.first.push(dayNumber(ad.first_seen));
    this.last.push(dayNumber(ad.last_seen));
    this.platform.push(code(this.dict.platforms, ad.platform));
    this.active.push(active);
    this.destination.push(destinationCode(ad.destination));
    this.advertiser.push(code(this.dict.advertisers, ad.advertiser_id, () => this.names.advertiserNames.push(ad.advertiser_name)));
    this.webmaster.push(
      ad.webmaster_id ? code(this.dict.webmasters, ad.webmaster_id, () => this.names.webmasterNames.push(ad.webmaster_name ?? '')) : -1,
    );
    this.app.push(
      ad.app_id && ad.app_doc
        ? code(this.dict.apps, ad.app_id, () => {
            const info = JSON.parse(ad.app_doc ?? '{}') as { name: string; store: AppStore; bundle_id: string };
            this.names.apps.push({ name: info.name, store: info.store, bundle_id: info.bundle_id });
          })
        : -1,
    );
    this.creative.push(
      code(this.dict.creatives, ad.creative_id, () => {
        this.names.creativeTitles.push(ad.creative_title);
        this.names.creativeFormats.push(ad.creative_format);
      }),
    );
    for (const c of countries) this.countryVal.push(code(this.dict.countries, c));
    this.countryOff.push(this.countryVal.length);
    for (const c of categories) this.categoryVal.push(code(this.dict.categories, c));
    this.categoryOff.push(this.categoryVal.length);
    this.hostRev.push(ad.host_rev);
  }

  /** Rank of every ad's id in id order (the tiebreaker of every sort), from the ids' unique index. */
  rankIds(ridsInIdOrder: Iterable<{ rid: number }>) {
    const position = new Map<number, number>();
    this.rid.forEach((rid, i) => position.set(rid, i));
    this.idRank = new Int32Array(this.rid.length);
    let rank = 0;
    for (const { rid } of ridsInIdOrder) {
      const p = position.get(rid);
      if (p !== undefined) this.idRank[p] = rank++;
    }
  }

  /** Labels follow the entity records (their name rules): names of advertisers and webmasters, apps, creative titles. */
  rename(recordOf: (kind: 'advertiser' | 'webmaster' | 'app' | 'creative', id: string) => { row: unknown } | undefined) {
    const relabel = <T>(kind: 'advertiser' | 'webmaster' | 'app' | 'creative', dict: Map<string, number>, labels: T[], label: (row: never) => T) => {
      for (const [id, i] of dict) {
        const record = recordOf(kind, id);
        if (record) labels[i] = label(record.row as never);
      }
    };
    relabel('advertiser', this.dict.advertisers, this.names.advertiserNames, (row: { name: string }) => row.name);
    relabel('webmaster', this.dict.webmasters, this.names.webmasterNames, (row: { name: string }) => row.name);
    relabel('creative', this.dict.creatives, this.names.creativeTitles, (row: { title: string }) => row.title);
    relabel('creative', this.dict.creatives, this.names.creativeFormats, (row: { creative_format: CreativeFormat }) => row.creative_format);
    relabel('app', this.dict.apps, this.names.apps, (row: { name: string; store: AppStore; bundle_id: string }) => ({
      name: row.name,
      store: row.store,
      bundle_id: row.bundle_id,
    }));
  }

  /** The columns in (first_seen, id) order: rows were read in row-id order, ranked by id since. */
  build(): AdColumns {
    const keys = (map: Map<string, number>) => [...map.keys()];
    const n = this.rid.length;
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) => (this.first[a] ?? 0) - (this.first[b] ?? 0) || (this.idRank[a] ?? 0) - (this.idRank[b] ?? 0),
    );
    const pick = (values: number[] | Int32Array) => order.map((i) => values[i] ?? 0);
    const csr = (off: number[], val: number[]) => {
      const offsets = [0];
      const out: number[] = [];
      for (const i of order) {
        for (let j = off[i] ?? 0, end = off[i + 1] ?? 0; j < end; j++) out.push(val[j] ?? 0);
        offsets.push(out.length);
      }
      return { offsets: Int32Array.from(offsets), values: Uint16Array.from(out) };
    };
    const hostsReversed = [...new Set(this.hostRev)].sort();
    const hostRank = new Map(hostsReversed.map((h, i) => [h, i]));
    const countries = csr(this.countryOff, this.countryVal);
    const categories = csr(this.categoryOff, this.categoryVal);
    return {
      n,
      sorted: n,
      rid: Int32Array.from(pick(this.rid)),
      activity: Int32Array.from(pick(this.activity)),
      popularity: Float64Array.from(pick(this.popularity)),
      impressions: Float64Array.from(pick(this.impressions)),
      idRank: Int32Array.from(pick(this.idRank)),
      first: Int32Array.from(pick(this.first)),
      last: Int32Array.from(pick(this.last)),
      platform: Uint8Array.from(pick(this.platform)),
      active: Uint8Array.from(pick(this.active)),
      destination: Uint8Array.from(pick(this.destination)),
      advertiser: Int32Array.from(pick(this.advertiser)),
      webmaster: Int32Array.from(pick(this.webmaster)),
      app: Int32Array.from(pick(this.app)),
      creative: Int32Array.from(pick(this.creative)),
      countryOff: countries.offsets,
      countryVal: countries.values,
      host: Int32Array.from(order, (i) => hostRank.get(this.hostRev[i] ?? '') ?? 0),
      hostOrder: identityOrder(hostsReversed.length),
      hostRank: identityOrder(hostsReversed.length),
      categoryOff: categories.offsets,
      categoryVal: categories.values,
      dicts: {
        platforms: keys(this.dict.platforms),
        countries: keys(this.dict.countries),
        categories: keys(this.dict.categories),
        advertiserIds: keys(this.dict.advertisers),
        webmasterIds: keys(this.dict.webmasters),
        appIds: keys(this.dict.apps),
        creativeIds: keys(this.dict.creatives),
        hostsReversed,
        ...this.names,
      },
    };
  }
}

/** A destination type's code in the `destination` column. */
export const destinationCode = (type: string): number => Math.max(0, DESTINATION_TYPES.indexOf(type as DestinationType));

/** What lowerBound reads of a sorted list. */
export interface SortedList<T> {
  readonly length: number;
  at(index: number): T | undefined;
}
