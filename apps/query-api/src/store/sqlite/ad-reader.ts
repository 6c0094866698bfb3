import type { DatabaseSync } from 'node:sqlite';
import type { Ad, AdSort, AdvertiserMatch, BreakdownField, Platform } from '@adintel/contracts';
import type { RecordMedia } from '../record-media';
import type { AdDetailRecord, AdFilter, AdSearchQuery, BreakdownResult, CountResult, CoverageData, KeysetPage, TrendQuery, TrendResult } from '../ad-store.port';
import { isoDate } from '../text';
import { AdPlanner, ftsQuery, SORT_INDEX } from './ad-planner';
import { ColumnarAds } from './columnar-search';
import type { EntityReader } from './entity-reader';
import type { GenerationCache } from './generation-cache';
import type { ColumnsState } from './live-columns';
import { MOVING_COLUMNS, type MovingRow, withMoving } from './moving-values';
import { computeTrend } from './trend-scan';

const SORT_COLUMN: Record<AdSort, string> = {
  date: 'first_seen',
  days_active: 'days_active',
  activity_days_amount: 'activity_days',
  most_popular: 'popularity',
  impressions: 'impressions',
};

/** `where`: ads without a value are left out (ads without a webmaster). */
const BREAKDOWN_SQL: Record<BreakdownField, { join?: string; key: string; where?: string }> = {
  country: { join: 'ad_countries', key: 'j.value' },
  category: { join: 'ad_categories', key: 'j.value' },
  language: { join: 'ad_languages', key: 'j.value' },
  platform: { key: 'ads.platform' },
  creative_format: { key: 'ads.creative_format' },
  landing_domain: { key: 'ads.registrable' },
  status: { key: 'ads.status' },
  destination_type: { key: 'ads.destination' },
  advertiser: { key: 'ads.advertiser_id' },
  webmaster: { key: 'ads.webmaster_id', where: 'ads.webmaster_id IS NOT NULL' },
};

/** Plans estimated above this cost (≈ µs) run on the in-memory columns instead. */
const COLUMNAR_ABOVE_COST = 15_000;

/** The planner's thresholds; tests move them to force one path or the other. */
export interface ReaderTuning {
  /** Plans estimated above this cost use the columnar path (tests force it with -1). */
  readonly columnarAboveCost?: number;
}

/**
 * Reads of ads: pages (SQL through the planner, or the in-memory columns), counts, breakdowns, one ad, trends.
 */
export class AdReader {
  private readonly planner: AdPlanner;

  constructor(
    private readonly db: DatabaseSync,
    private readonly cache: GenerationCache,
    private readonly entities: EntityReader,
    private readonly live: { current(): ColumnsState | null },
    private readonly options: ReaderTuning = {},
  ) {
    this.planner = new AdPlanner(db, cache);
  }

  searchAds(query: AdSearchQuery): KeysetPage<Ad> {
    const column = `ads.${SORT_COLUMN[query.sort]}`;
    const columnar = this.columnarFor(query.filter);
    // Words with a bitset: the columns walk its bits, cheaper than any FTS plan (and no plan is needed).
    const wordBits = query.filter.words?.length && columnar ? this.wordBits(query.filter.words) : null;
    if (wordBits) {
      const page = this.searchColumnar(query, wordBits);
      if (page) return page;
    }
    const plan = this.planner.plan(query.filter, query.limit + 1, { index: SORT_INDEX[query.sort] });
    // Otherwise the columns when they cost less than the SQL plan (posting lists, a date-ordered walk), or when the
    // plan is costly whatever the estimate says (words without bitsets: FTS yields their rows).
    const columnarCost =
      columnar && !query.filter.words?.length ? columnar.searchCost(query.filter, query.sort, query.limit, null) : Infinity;
    if (columnar && (columnarCost < plan.cost || plan.cost > (this.options.columnarAboveCost ?? COLUMNAR_ABOVE_COST))) {
      const page = this.searchColumnar(query, null);
      if (page) return page;
    }
    const dir = query.order === 'desc' ? 'DESC' : 'ASC';
    let sql = `SELECT ads.rid AS rid, ${column} AS sort_value, ads.id AS id FROM ${plan.from} WHERE ${plan.where}`;
    const params = [...plan.params];
    if (query.after) {
      sql += ` AND (${column}, ads.id) ${query.order === 'desc' ? '<' : '>'} (?, ?)`;
      params.push(query.after.value, query.after.id);
    }
    sql += ` ORDER BY ${plan.orderPrefix}${column} ${dir}, ads.id ${dir} LIMIT ?`;
    params.push(query.limit + 1);
    const rows = this.db.prepare(sql).all(...params) as { rid: number; sort_value: string | number; id: string }[];
    const page = rows.slice(0, query.limit);
    const docs = this.docsOf(page.map((r) => r.rid));
    const last = page.at(-1);
    return {
      rows: page.flatMap((r) => {
        const doc = docs.get(r.rid);
        return doc ? [toAd(doc)] : [];
      }),
      hasMore: rows.length > query.limit,
      lastKey: last ? { value: last.sort_value, id: last.id } : null,
    };
  }

  /** The columnar path (see ColumnarAds); null when the columns are unavailable. */
  private searchColumnar(query: AdSearchQuery, bits: Uint32Array | null): KeysetPage<Ad> | null {
    const columnar = this.columnarFor(query.filter);
    if (!columnar) return null;
    let after: { value: string | number; idRank: number } | undefined;
    if (query.after) {
      const row = this.db.prepare('SELECT rid FROM ads WHERE id = ?').get(query.after.id) as { rid: number } | undefined;
      const p = row ? columnar.positionOf(row.rid) : -1;
      if (p < 0) return null;
      after = { value: query.after.value, idRank: columnar.cols.idRank[p] ?? 0 };
    }
    const candidates = query.filter.words?.length && !bits ? this.rowsMatching(query.filter.words) : null;
    const { positions, hasMore } = columnar.search(query.filter, query.sort, query.order, query.limit, after, candidates, bits);
    const rids = positions.map((p) => columnar.cols.rid[p] ?? 0);
    const docs = this.docsOf(rids);
    const rows = rids.flatMap((rid) => {
      const doc = docs.get(rid);
      return doc ? [toAd(doc)] : [];
    });
    const lastPosition = positions.at(-1);
    const last = rows.at(-1);
    const value =
      lastPosition === undefined ? 0 : query.sort === 'date' ? isoDate(columnar.sortValue('date', lastPosition)) : columnar.sortValue(query.sort, lastPosition);
    return { rows, hasMore, lastKey: last ? { value, id: last.id } : null };
  }

  /**
   * The positions (bits) of the ads containing every word, when each word has a bitset over these columns; else
   * null. A new array only when several words are ANDed.
   */
  private wordBits(words: string[]): Uint32Array | null {
    const loaded = this.live.current()?.wordBits;
    const each: Uint32Array[] = [];
    for (const word of words) {
      const bits = loaded?.get(word);
      if (!bits) return null;
      each.push(bits);
    }
    const [first, ...rest] = each;
    if (!first || !rest.length) return first ?? null;
    const all = first.slice();
    for (const bits of rest) for (let i = 0; i < all.length; i++) all[i] = (all[i] ?? 0) & (bits[i] ?? 0);
    return all;
  }

  /** Row ids of the ads containing every word, as one array (rows as arrays, not objects: tens of thousands of them). */
  private rowsMatching(words: string[]): number[] {
    const statement = this.db.prepare('SELECT rowid FROM ads_fts WHERE ads_fts MATCH ?');
    statement.setReturnArrays(true);
    return (statement.all(ftsQuery(words)) as unknown as [number][]).map((row) => row[0]);
  }

  /** The in-memory columns, current to the last live batch (null before the first finish()). */
  columnarAds(): ColumnarAds | null {
    return this.live.current()?.columnar ?? null;
  }

  /** The columns, when they can answer this filter (landing_domain needs the host column of newer stores). */
  private columnarFor(filter: AdFilter): ColumnarAds | null {
    const columnar = this.columnarAds();
    return columnar && (!filter.landingDomain || columnar.servesHosts) ? columnar : null;
  }

  /**
   * Counted on the columns (posting lists, word bitsets, typed-array checks), stopping one past `exactUpTo`;
   * in SQL only when the columns cannot answer the filter.
   */
  countAds(filter: AdFilter, exactUpTo: number): CountResult {
    const columnar = this.columnarFor(filter);
    if (columnar) {
      const bits = filter.words?.length ? this.wordBits(filter.words) : null;
      const candidates = filter.words?.length && !bits ? this.rowsMatching(filter.words) : null;
      const n = columnar.count(filter, exactUpTo + 1, bits, candidates);
      return n > exactUpTo ? { total: exactUpTo, estimated: true } : { total: n, estimated: false };
    }
    const plan = this.planner.plan(filter, exactUpTo);
    const { n } = this.db
      .prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${plan.from} WHERE ${plan.where} LIMIT ?)`)
      .get(...plan.params, exactUpTo + 1) as { n: number };
    return n > exactUpTo ? { total: exactUpTo, estimated: true } : { total: n, estimated: false };
  }

  getAd(id: string): AdDetailRecord | null {
    const row = this.db
      .prepare(`SELECT d.doc, d.advertiser_name, d.webmaster_name, ${MOVING_COLUMNS} FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?`)
      .get(id) as
      | (MovingRow & { doc: string; advertiser_name: string; webmaster_name: string | null })
      | undefined;
    if (!row) return null;
    const doc = withMoving(JSON.parse(row.doc) as StoredDoc, row);
    const advertiser = this.entities.renderedEntity<AdvertiserMatch>('advertiser', doc.advertiser_id, 'row_doc');
    return {
      ...toAd(doc),
      media: doc.media,
      advertiser: {
        id: doc.advertiser_id,
        name: advertiser?.name ?? row.advertiser_name,
        platforms: advertiser?.platforms ?? [doc.platform_name],
      },
      webmaster: doc.webmaster_id ? { id: doc.webmaster_id, name: row.webmaster_name ?? doc.webmaster_id } : null,
    };
  }

  breakdown(filter: AdFilter, field: BreakdownField, limit: number): BreakdownResult {
    const plan = this.planner.plan(filter, Infinity);
    const { n } = this.db.prepare(`SELECT count(*) AS n FROM ${plan.from} WHERE ${plan.where}`).get(...plan.params) as {
      n: number;
    };
    const spec = BREAKDOWN_SQL[field];
    const from = spec.join ? `${plan.from} JOIN ${spec.join} j ON j.rid = ads.rid` : plan.from;
    const buckets = this.db
      .prepare(
        `SELECT ${spec.key} AS key, count(*) AS ads FROM ${from} WHERE ${plan.where}${spec.where ? ` AND ${spec.where}` : ''}
         GROUP BY ${spec.key} ORDER BY ads DESC, key ASC LIMIT ?`,
      )
      .all(...plan.params, limit) as { key: string; ads: number }[];
    const kind = field === 'advertiser' || field === 'webmaster' ? field : null;
    const labelOf = (key: string) => (kind ? { label: this.entities.renderedEntity<{ name: string }>(kind, key, 'row_doc')?.name ?? key } : {});
    return { total: n, buckets: buckets.map((b) => ({ key: b.key, ads: b.ads, ...labelOf(b.key) })) };
  }

  /** Ads and newest sighting per platform and country: one pass over the columns, kept while they stay the same. */
  coverage(): CoverageData[] {
    const columnar = this.columnarAds();
    if (!columnar) return [];
    const cached = this.coverageOf.get(columnar);
    if (cached) return cached;
    const c = columnar.cols;
    const width = c.dicts.countries.length;
    const ads = new Int32Array(c.dicts.platforms.length * width);
    const newest = new Int32Array(ads.length).fill(-1);
    for (let p = 0; p < c.n; p++) {
      const row = (c.platform[p] ?? 0) * width;
      const last = c.last[p] ?? 0;
      for (let j = c.countryOff[p] ?? 0, end = c.countryOff[p + 1] ?? 0; j < end; j++) {
        const at = row + (c.countryVal[j] ?? 0);
        ads[at] = (ads[at] ?? 0) + 1;
        if (last > (newest[at] ?? -1)) newest[at] = last;
      }
    }
    const rows: CoverageData[] = [];
    for (let at = 0; at < ads.length; at++) {
      const n = ads[at] ?? 0;
      if (!n) continue;
      const platform = c.dicts.platforms[Math.floor(at / width)] as Platform;
      rows.push({ platform, country: c.dicts.countries[at % width] ?? '', ads: n, newestSighting: isoDate(newest[at] ?? 0) });
    }
    rows.sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : b.ads - a.ads || (a.country < b.country ? -1 : 1)));
    this.coverageOf.set(columnar, rows);
    return rows;
  }

  private readonly coverageOf = new WeakMap<ColumnarAds, CoverageData[]>();

  trends(query: TrendQuery): TrendResult {
    const columnar = this.columnarAds();
    if (!columnar) return { totalAds: 0, rows: [] };
    return computeTrend(columnar.cols, query, (rids) => this.adIdsOf(rids));
  }

  /** The ads' docs by row id, parsed, with the moving values of their rows (moving-values.ts). */
  private docsOf(rids: number[]): Map<number, StoredDoc> {
    if (!rids.length) return new Map();
    const rows = this.db
      .prepare(`SELECT d.rid, d.doc, ${MOVING_COLUMNS} FROM ad_docs d JOIN ads a ON a.rid = d.rid WHERE d.rid IN (${rids.map(() => '?').join(',')})`)
      .all(...rids) as unknown as (MovingRow & { rid: number; doc: string })[];
    return new Map(rows.map((r) => [r.rid, withMoving(JSON.parse(r.doc) as StoredDoc, r)]));
  }

  private adIdsOf(rids: number[]): string[] {
    if (!rids.length) return [];
    const rows = this.db
      .prepare(`SELECT rid, id FROM ads WHERE rid IN (${rids.map(() => '?').join(',')})`)
      .all(...rids) as { rid: number; id: string }[];
    const byRid = new Map(rows.map((r) => [r.rid, r.id]));
    return rids.map((rid) => byRid.get(rid)).filter((id): id is string => id !== undefined);
  }
}

type StoredDoc = Ad & { media: RecordMedia[] };

function toAd(doc: StoredDoc): Ad {
  const { media: _media, ...ad } = doc;
  return ad;
}
