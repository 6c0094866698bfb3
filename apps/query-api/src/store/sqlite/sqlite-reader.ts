import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { getDomain } from 'tldts';
import type {
  Ad,
  AdDetail,
  AdSort,
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  BreakdownField,
  Creative,
  CreativeRow,
  Domain,
  DomainRow,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type {
  ActivityDayData,
  AdFilter,
  AdSearchQuery,
  BreakdownResult,
  CatalogData,
  CountResult,
  DateRange,
  KeysetPage,
  NameQuery,
  PagedNameQuery,
  SortKey,
  TrendQuery,
  TrendResult,
} from '../ad-store.port';
import { dayNumber, isoDate, reverseHost } from '../text';
import { ColumnarAds } from './columnar-search';
import { applyPragmasForReading } from './schema';
import { computeTrend, decodeTrendColumns, type TrendColumns, WORD_BITS_PREFIX } from './trend-columns';

const SORT_COLUMN: Record<AdSort, string> = {
  date: 'first_seen',
  days_active: 'days_active',
  activity_days_amount: 'activity_days',
  most_popular: 'popularity',
  impressions: 'impressions',
};

const BREAKDOWN_SQL: Record<BreakdownField, { join?: string; key: string }> = {
  country: { join: 'ad_countries', key: 'j.value' },
  category: { join: 'ad_categories', key: 'j.value' },
  language: { join: 'ad_languages', key: 'j.value' },
  platform: { key: 'ads.platform' },
  creative_format: { key: 'ads.creative_format' },
  landing_domain: { key: 'ads.registrable' },
  status: { key: 'ads.status' },
};

type EntityKind = 'advertiser' | 'webmaster' | 'creative' | 'domain' | 'app';

/** An FTS5 query where every word must match, each as a quoted phrase (no operator injection). */
const ftsQuery = (words: string[]) => words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');

/** Upper bound of a prefix range on TEXT (U+10FFFF sorts after every character). */
const PREFIX_END = '\u{10FFFF}';

/** Above this many name matches, walking entities by volume beats sorting the matches. */
const MANY_NAME_MATCHES = 2_000;

const SORT_INDEX: Record<AdSort, string> = {
  date: 'ads_by_date',
  days_active: 'ads_by_days_active',
  activity_days_amount: 'ads_by_activity',
  most_popular: 'ads_by_popularity',
  impressions: 'ads_by_impressions',
};

const ID_FILTERS = [
  ['advertiserId', 'advertiser_id', 'ads_by_advertiser', 'advertiser'],
  ['webmasterId', 'webmaster_id', 'ads_by_webmaster', 'webmaster'],
  ['appId', 'app_id', 'ads_by_app', 'app'],
  ['creativeId', 'creative_id', 'ads_by_creative', 'creative'],
] as const;

/** Plans estimated above this cost (≈ µs) run on the in-memory columns instead. */
const COLUMNAR_ABOVE_COST = 15_000;

/** Rough per-row costs (µs) behind the choice between scanning a sort index and driving from a filter. */
const COST = { driveRow: 8, scanRow: 1, columnCheck: 3, joinProbe: 3, ftsCheck: 60 };

interface Driver {
  est: number;
  /** FROM clause when driving from this filter. */
  from: string;
  /** Which filter it is, so its condition is not repeated as a check. */
  key: keyof AdFilter;
}

export interface AdPlan {
  from: string;
  where: string;
  params: SQLInputValue[];
  /** '+' disables the sort index for ORDER BY (driving plans sort the few driven rows). */
  orderPrefix: '' | '+';
  /** Estimated cost (≈ µs) of the chosen plan. */
  cost: number;
}

interface Stats {
  n: number;
  countries: Record<string, number>;
  categories: Record<string, number>;
}

/**
 * Every read of the SQLite store, synchronous (node:sqlite). Runs inside a worker thread of the pool
 * (or in-process when the pool has no workers), on a read-only connection.
 */
export class SqliteReader {
  private readonly db: DatabaseSync;
  private trendColumns: { generation: string; columns: TrendColumns | null } | null = null;
  private catalogCache: { generation: string; data: CatalogData } | null = null;
  private statsCache: { generation: string; stats: Stats } | null = null;
  private vocabReady = false;
  private columnar: ColumnarAds | null = null;

  /** `columnarAboveCost`: plans estimated above it use the columnar path (tests force it with 0). */
  constructor(
    file: string,
    private readonly options: { columnarAboveCost?: number } = {},
  ) {
    this.db = new DatabaseSync(file, { readOnly: true });
    applyPragmasForReading(this.db);
  }

  /** Loads the in-memory columns ahead of the first request (workers call it at start). */
  warmUp(): void {
    if (this.generation()) this.columnarAds();
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  ping(): void {
    if (!this.generation()) throw new Error('the store holds no finished data yet (run the seed or ingest command)');
  }

  searchAds(query: AdSearchQuery): KeysetPage<Ad> {
    const column = `ads.${SORT_COLUMN[query.sort]}`;
    const plan = this.plan(query.filter, SORT_INDEX[query.sort], query.limit + 1);
    if (!query.filter.landingDomain) {
      // Words with a bitset: the columns walk its bits, cheaper than any FTS plan.
      const wordBits = query.filter.words?.length ? this.wordBits(query.filter.words) : null;
      if (wordBits || plan.cost > (this.options.columnarAboveCost ?? COLUMNAR_ABOVE_COST)) {
        const page = this.searchColumnar(query, wordBits);
        if (page) return page;
      }
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
        return doc ? [toAd(JSON.parse(doc) as StoredDoc)] : [];
      }),
      hasMore: rows.length > query.limit,
      lastKey: last ? { value: last.sort_value, id: last.id } : null,
    };
  }

  /** The columnar path (see ColumnarAds); null when the columns are unavailable. */
  private searchColumnar(query: AdSearchQuery, wordBits: Uint32Array | null): KeysetPage<Ad> | null {
    const columnar = this.columnarAds();
    if (!columnar) return null;
    const bits = wordBits && wordBits.length === (columnar.cols.n + 31) >>> 5 ? wordBits : null;
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
      return doc ? [toAd(JSON.parse(doc) as StoredDoc)] : [];
    });
    const lastPosition = positions.at(-1);
    const last = rows.at(-1);
    const value =
      lastPosition === undefined ? 0 : query.sort === 'date' ? isoDate(columnar.sortValue('date', lastPosition)) : columnar.sortValue(query.sort, lastPosition);
    return { rows, hasMore, lastKey: last ? { value, id: last.id } : null };
  }

  /** The positions (bits) of the ads containing every word, when each word has a bitset; else null. */
  private wordBits(words: string[]): Uint32Array | null {
    const statement = this.db.prepare('SELECT data FROM trend_columns WHERE name = ?');
    let all: Uint32Array | null = null;
    for (const word of words) {
      const row = statement.get(WORD_BITS_PREFIX + word) as { data: Uint8Array } | undefined;
      if (!row || row.data.byteLength % 4 !== 0) return null;
      const bits = new Uint32Array(row.data.slice().buffer);
      if (!all) all = bits;
      else if (all.length !== bits.length) return null;
      else for (let i = 0; i < all.length; i++) all[i] = (all[i] ?? 0) & (bits[i] ?? 0);
    }
    return all;
  }

  /** Row ids of the ads containing every word, as one array (rows as arrays, not objects: tens of thousands of them). */
  private rowsMatching(words: string[]): number[] {
    const statement = this.db.prepare('SELECT rowid FROM ads_fts WHERE ads_fts MATCH ?');
    statement.setReturnArrays(true);
    return (statement.all(ftsQuery(words)) as unknown as [number][]).map((row) => row[0]);
  }

  private columnarAds(): ColumnarAds | null {
    const columns = this.loadTrendColumns();
    if (!columns) return null;
    if (this.columnar?.cols !== columns) this.columnar = new ColumnarAds(columns);
    return this.columnar;
  }

  countAds(filter: AdFilter, exactUpTo: number): CountResult {
    const plan = this.plan(filter, null, exactUpTo);
    const { n } = this.db
      .prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${plan.from} WHERE ${plan.where} LIMIT ?)`)
      .get(...plan.params, exactUpTo + 1) as { n: number };
    return n > exactUpTo ? { total: exactUpTo, estimated: true } : { total: n, estimated: false };
  }

  getAd(id: string): AdDetail | null {
    const row = this.db
      .prepare('SELECT d.doc, d.advertiser_name, d.webmaster_name FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?')
      .get(id) as
      | { doc: string; advertiser_name: string; webmaster_name: string | null }
      | undefined;
    if (!row) return null;
    const doc = JSON.parse(row.doc) as StoredDoc;
    const advertiser = this.entity<AdvertiserMatch>('advertiser', doc.advertiser_id, 'row_doc');
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
    const plan = this.plan(filter, null, Infinity);
    const { n } = this.db.prepare(`SELECT count(*) AS n FROM ${plan.from} WHERE ${plan.where}`).get(...plan.params) as {
      n: number;
    };
    const spec = BREAKDOWN_SQL[field];
    const from = spec.join ? `${plan.from} JOIN ${spec.join} j ON j.rid = ads.rid` : plan.from;
    const buckets = this.db
      .prepare(
        `SELECT ${spec.key} AS key, count(*) AS ads FROM ${from} WHERE ${plan.where}
         GROUP BY ${spec.key} ORDER BY ads DESC, key ASC LIMIT ?`,
      )
      .all(...plan.params, limit) as { key: string; ads: number }[];
    return { total: n, buckets: buckets.map((b) => ({ key: b.key, ads: b.ads })) };
  }

  trends(query: TrendQuery): TrendResult {
    const columns = this.loadTrendColumns();
    if (!columns) return { totalAds: 0, rows: [] };
    return computeTrend(columns, query, (rids) => this.adIdsOf(rids));
  }

  searchAdvertisers(query: NameQuery): AdvertiserMatch[] {
    return this.searchEntities<AdvertiserMatch>('advertiser', query).rows;
  }

  getAdvertiser(id: string): Advertiser | null {
    return this.entity<Advertiser>('advertiser', id, 'full_doc');
  }

  advertiserActivity(id: string, range: DateRange): ActivityDayData[] | null {
    if (!this.entity('advertiser', id, 'row_doc')) return null;
    const from = dayNumber(range.from);
    const to = dayNumber(range.to);
    const days = to - from + 1;
    const diff = new Int32Array(days + 1);
    const fresh = new Int32Array(days);
    const ads = this.db
      .prepare('SELECT first_seen, last_seen FROM ads WHERE advertiser_id = ? AND first_seen <= ? AND last_seen >= ?')
      .all(id, range.to, range.from) as { first_seen: string; last_seen: string }[];
    for (const ad of ads) {
      const f = dayNumber(ad.first_seen);
      const l = dayNumber(ad.last_seen);
      diff[Math.max(f, from) - from] = (diff[Math.max(f, from) - from] ?? 0) + 1;
      diff[Math.min(l, to) - from + 1] = (diff[Math.min(l, to) - from + 1] ?? 0) - 1;
      if (f >= from) fresh[f - from] = (fresh[f - from] ?? 0) + 1;
    }
    const out: ActivityDayData[] = [];
    let active = 0;
    for (let d = 0; d < days; d++) {
      active += diff[d] ?? 0;
      out.push({ date: isoDate(from + d), new_ads: fresh[d] ?? 0, active_ads: active });
    }
    return out;
  }

  searchWebmasters(query: PagedNameQuery): KeysetPage<WebmasterRow> {
    return this.searchEntities<WebmasterRow>('webmaster', query);
  }

  getWebmaster(id: string): Webmaster | null {
    return this.entity<Webmaster>('webmaster', id, 'full_doc');
  }

  webmasterAdvertisers(id: string, page: { limit: number; after?: SortKey }): KeysetPage<AdvertiserMatch> | null {
    if (!this.entity('webmaster', id, 'row_doc')) return null;
    const params: SQLInputValue[] = [id];
    let sql = `SELECT e.row_doc AS doc, e.ads_total AS total, e.id AS id FROM webmaster_advertisers w
      JOIN entities e ON e.kind = 'advertiser' AND e.id = w.advertiser_id WHERE w.webmaster_id = ?`;
    if (page.after) {
      sql += ' AND (e.ads_total < ? OR (e.ads_total = ? AND e.id > ?))';
      params.push(page.after.value, page.after.value, page.after.id);
    }
    sql += ' ORDER BY e.ads_total DESC, e.id ASC LIMIT ?';
    params.push(page.limit + 1);
    return keysetOf<AdvertiserMatch>(this.db.prepare(sql).all(...params) as EntityHit[], page.limit);
  }

  searchCreatives(query: PagedNameQuery): KeysetPage<CreativeRow> {
    return this.searchEntities<CreativeRow>('creative', query);
  }

  getCreative(id: string): Creative | null {
    const row = this.entity<CreativeRow>('creative', id, 'row_doc');
    if (!row) return null;
    const first = this.db
      .prepare('SELECT d.doc FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.creative_id = ? ORDER BY a.id LIMIT 1')
      .get(id) as
      | { doc: string }
      | undefined;
    const countries = this.db
      .prepare(
        `SELECT j.value AS key, count(*) AS n FROM ads JOIN ad_countries j ON j.rid = ads.rid
         WHERE ads.creative_id = ? GROUP BY j.value ORDER BY n DESC, key ASC`,
      )
      .all(id) as { key: string }[];
    const advertisers = this.db
      .prepare(
        `SELECT advertiser_id AS key, count(*) AS n FROM ads WHERE creative_id = ?
         GROUP BY advertiser_id ORDER BY n DESC, key ASC LIMIT 20`,
      )
      .all(id) as { key: string }[];
    const samples = this.db
      .prepare('SELECT id FROM ads WHERE creative_id = ? ORDER BY first_seen DESC, id DESC LIMIT 5')
      .all(id) as { id: string }[];
    return {
      ...row,
      media: first ? (JSON.parse(first.doc) as StoredDoc).media : [],
      countries: countries.map((c) => c.key),
      advertiser_ids: advertisers.map((a) => a.key),
      sample_ad_ids: samples.map((s) => s.id),
    };
  }

  searchDomains(query: PagedNameQuery): KeysetPage<DomainRow> {
    return this.searchEntities<DomainRow>('domain', query);
  }

  getDomain(domain: string): Domain | null {
    return this.entity<Domain>('domain', domain, 'full_doc');
  }

  searchApps(query: PagedNameQuery): KeysetPage<AppRow> {
    return this.searchEntities<AppRow>('app', query);
  }

  getApp(id: string): App | null {
    return this.entity<App>('app', id, 'full_doc');
  }

  catalog(): CatalogData {
    const generation = this.generation();
    if (this.catalogCache?.generation === generation) return this.catalogCache.data;
    const stored = this.db.prepare("SELECT value FROM meta WHERE key = 'catalog'").get() as { value: string } | undefined;
    const data: CatalogData = stored
      ? (JSON.parse(stored.value) as CatalogData)
      : { countries: [], categories: [], languages: [], firstSeenDate: null, lastSeenDate: null };
    this.catalogCache = { generation, data };
    return data;
  }

  /**
   * Chooses how to run an ad query: scan the sort index and check every filter per row (cheap while
   * matches are common), or drive from the most selective filter and sort what it yields (when it
   * yields few rows). SQLite's planner cannot know how skewed countries or advertisers are; we do.
   */
  plan(filter: AdFilter, sortIndex: string | null, wanted: number): AdPlan {
    const stats = this.stats();
    const n = Math.max(stats.n, 1);
    const drivers: Driver[] = [];
    let selectivity = 1;
    let checkCost = COST.scanRow;
    if (filter.words?.length) {
      const est = Math.min(...filter.words.map((w) => this.documentsWith(w)));
      drivers.push({ est, from: 'ads NOT INDEXED', key: 'words' });
      selectivity *= est / n;
      checkCost += COST.ftsCheck;
    }
    if (filter.country) {
      const est = stats.countries[filter.country] ?? 0;
      drivers.push({ est, from: 'ads NOT INDEXED', key: 'country' });
      selectivity *= est / n;
      checkCost += COST.joinProbe;
    }
    if (filter.categories?.length) {
      const est = filter.categories.reduce((sum, c) => sum + (stats.categories[c] ?? 0), 0);
      drivers.push({ est, from: 'ads NOT INDEXED', key: 'categories' });
      selectivity *= Math.min(1, est / n);
      checkCost += COST.joinProbe;
    }
    for (const [key, , index, kind] of ID_FILTERS) {
      const id = filter[key];
      if (id === undefined) continue;
      const est = this.entityVolume(kind, id);
      drivers.push({ est, from: `ads INDEXED BY ${index}`, key });
      selectivity *= est / n;
      checkCost += COST.columnCheck;
    }
    if (filter.landingDomain) {
      const registrable = getDomain(filter.landingDomain);
      const est = registrable ? this.entityVolume('domain', registrable) : 0;
      drivers.push({ est, from: 'ads INDEXED BY ads_by_host', key: 'landingDomain' });
      selectivity *= est / n;
      checkCost += COST.columnCheck;
    }
    if (filter.platforms && new Set(filter.platforms).size < 2) selectivity *= 0.5;
    if (filter.status) selectivity *= 0.5;
    if (filter.dateFrom || filter.dateTo || filter.platforms || filter.status) checkCost += COST.columnCheck;

    const best = drivers.reduce<Driver | null>((b, d) => (!b || d.est < b.est ? d : b), null);
    const scanCost = (Math.min(wanted, n) / Math.max(selectivity, 1 / n)) * checkCost;
    const drive = best !== null && (sortIndex === null || best.est * COST.driveRow < scanCost);
    const conditions = conditionsOf(filter, drive ? (best?.key ?? null) : null);
    return {
      from: drive && best ? best.from : sortIndex ? `ads INDEXED BY ${sortIndex}` : 'ads',
      where: conditions.sql,
      params: conditions.params,
      orderPrefix: drive ? '+' : '',
      cost: drive && best ? best.est * COST.driveRow : scanCost,
    };
  }

  private stats(): Stats {
    const generation = this.generation();
    if (this.statsCache?.generation !== generation) {
      const row = this.db.prepare("SELECT value FROM meta WHERE key = 'value_counts'").get() as { value: string } | undefined;
      this.statsCache = { generation, stats: row ? (JSON.parse(row.value) as Stats) : { n: 0, countries: {}, categories: {} } };
    }
    return this.statsCache.stats;
  }

  private documentsWith(word: string): number {
    if (!this.vocabReady) {
      this.db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.ads_vocab USING fts5vocab(main, ads_fts, row)');
      this.vocabReady = true;
    }
    const row = this.db.prepare('SELECT doc FROM temp.ads_vocab WHERE term = ?').get(word) as { doc: number } | undefined;
    return row?.doc ?? 0;
  }

  private entityVolume(kind: EntityKind, id: string): number {
    const row = this.db.prepare('SELECT ads_total FROM entities WHERE kind = ? AND id = ?').get(kind, id) as
      | { ads_total: number }
      | undefined;
    return row?.ads_total ?? 0;
  }

  private docsOf(rids: number[]): Map<number, string> {
    if (!rids.length) return new Map();
    const rows = this.db
      .prepare(`SELECT rid, doc FROM ad_docs WHERE rid IN (${rids.map(() => '?').join(',')})`)
      .all(...rids) as { rid: number; doc: string }[];
    return new Map(rows.map((r) => [r.rid, r.doc]));
  }

  private generation(): string {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'generation'").get() as { value: string } | undefined;
    return row?.value ?? '';
  }

  private loadTrendColumns(): TrendColumns | null {
    const generation = this.generation();
    if (this.trendColumns?.generation !== generation) {
      const blobs = new Map<string, Uint8Array>();
      const columnRows = this.db.prepare('SELECT name, data FROM trend_columns WHERE name NOT GLOB ?').all(`${WORD_BITS_PREFIX}*`) as {
        name: string;
        data: Uint8Array;
      }[];
      for (const row of columnRows) {
        blobs.set(row.name, row.data);
      }
      this.trendColumns = { generation, columns: decodeTrendColumns(blobs) };
    }
    return this.trendColumns.columns;
  }

  private adIdsOf(rids: number[]): string[] {
    if (!rids.length) return [];
    const rows = this.db
      .prepare(`SELECT rid, id FROM ads WHERE rid IN (${rids.map(() => '?').join(',')})`)
      .all(...rids) as { rid: number; id: string }[];
    const byRid = new Map(rows.map((r) => [r.rid, r.id]));
    return rids.map((rid) => byRid.get(rid)).filter((id): id is string => id !== undefined);
  }

  private entity<T>(kind: EntityKind, id: string, column: 'row_doc' | 'full_doc'): T | null {
    const row = this.db.prepare(`SELECT ${column} AS doc FROM entities WHERE kind = ? AND id = ?`).get(kind, id) as
      | { doc: string }
      | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  private searchEntities<T>(kind: EntityKind, query: PagedNameQuery): KeysetPage<T> {
    const params: SQLInputValue[] = [kind];
    let sql = 'SELECT row_doc AS doc, ads_total AS total, id FROM entities WHERE kind = ?';
    if (query.q) {
      // Few matches: collect them and sort. Many (a common word): walk the entities by volume and probe each.
      const range = [kind, query.q, `${query.q}${PREFIX_END}`];
      const { n } = this.db
        .prepare('SELECT count(*) AS n FROM (SELECT 1 FROM name_index WHERE kind = ? AND suffix >= ? AND suffix < ? LIMIT ?)')
        .get(...range, MANY_NAME_MATCHES) as { n: number };
      if (n < MANY_NAME_MATCHES) {
        sql += ' AND id IN (SELECT id FROM name_index WHERE kind = ? AND suffix >= ? AND suffix < ?)';
      } else {
        sql = sql.replace('FROM entities', 'FROM entities INDEXED BY entities_by_volume');
        sql += ' AND EXISTS (SELECT 1 FROM name_index n WHERE n.kind = ? AND n.id = entities.id AND n.suffix >= ? AND n.suffix < ?)';
      }
      params.push(...range);
    }
    if (query.after) {
      sql += ' AND (ads_total < ? OR (ads_total = ? AND id > ?))';
      params.push(query.after.value, query.after.value, query.after.id);
    }
    sql += ' ORDER BY ads_total DESC, id ASC LIMIT ?';
    params.push(query.limit + 1);
    return keysetOf<T>(this.db.prepare(sql).all(...params) as EntityHit[], query.limit);
  }
}

type EntityHit = { doc: string; total: number; id: string };

function keysetOf<T>(rows: EntityHit[], limit: number): KeysetPage<T> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((r) => JSON.parse(r.doc) as T),
    hasMore: rows.length > limit,
    lastKey: last ? { value: last.total, id: last.id } : null,
  };
}

type StoredDoc = Ad & { media: AdDetail['media'] };

function toAd(doc: StoredDoc): Ad {
  const { media: _media, ...ad } = doc;
  return ad;
}

/**
 * The WHERE clause of an ad filter. The driving filter (if any) is written so SQLite can drive from
 * it (IN over its rows, or the equality its forced index serves); every other join-table or FTS
 * filter is a per-row EXISTS probe, which is cheap while scanning a sort index.
 */
export function conditionsOf(filter: AdFilter, driver: keyof AdFilter | null): { sql: string; params: SQLInputValue[] } {
  const clauses: string[] = [];
  const params: SQLInputValue[] = [];
  const joinFilter = (table: string, values: string[], drive: boolean) => {
    const match = values.length === 1 ? 'value = ?' : `value IN (${values.map(() => '?').join(',')})`;
    clauses.push(
      drive
        ? `ads.rid IN (SELECT rid FROM ${table} WHERE ${match})`
        : `EXISTS (SELECT 1 FROM ${table} j WHERE j.rid = ads.rid AND j.${match})`,
    );
    params.push(...values);
  };
  if (filter.words?.length) {
    clauses.push(
      driver === 'words'
        ? 'ads.rid IN (SELECT rowid FROM ads_fts WHERE ads_fts MATCH ?)'
        : 'EXISTS (SELECT 1 FROM ads_fts WHERE ads_fts MATCH ? AND rowid = ads.rid)',
    );
    params.push(ftsQuery(filter.words));
  }
  if (filter.country) joinFilter('ad_countries', [filter.country], driver === 'country');
  if (filter.categories?.length) joinFilter('ad_categories', filter.categories, driver === 'categories');
  if (filter.platforms?.length) {
    clauses.push(`ads.platform IN (${filter.platforms.map(() => '?').join(',')})`);
    params.push(...filter.platforms);
  }
  if (filter.status) {
    clauses.push('ads.status = ?');
    params.push(filter.status);
  }
  for (const [key, column] of ID_FILTERS) {
    const value = filter[key];
    if (value !== undefined) {
      clauses.push(`ads.${column} = ?`);
      params.push(value);
    }
  }
  if (filter.landingDomain) {
    const reversed = reverseHost(filter.landingDomain);
    // "com.example." .. "com.example/" covers the domain itself and every "com.example.<sub>." host.
    clauses.push('ads.host_rev >= ? AND ads.host_rev < ?');
    params.push(reversed, `${reversed.slice(0, -1)}/`);
  }
  if (filter.dateFrom) {
    clauses.push('ads.last_seen >= ?');
    params.push(filter.dateFrom);
  }
  if (filter.dateTo) {
    clauses.push('ads.first_seen <= ?');
    params.push(filter.dateTo);
  }
  return { sql: clauses.length ? clauses.join(' AND ') : '1', params };
}
