import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type {
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  CreativeRow,
  Domain,
  DomainRow,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type { ActivityDayData, CatalogData, CreativeHash, CreativeRecord, DateRange, KeysetPage, NameQuery, PagedNameQuery, SortKey } from '../ad-store.port';
import type { RecordMedia } from '../record-media';
import { dayNumber, isoDate } from '../text';
import { type EntityMoving, withEntityMoving } from './entity-moving';
import type { GenerationCache } from './generation-cache';
import type { ColumnsState } from './live-columns';

type EntityKind = 'advertiser' | 'webmaster' | 'creative' | 'domain' | 'app';

/** Upper bound of a prefix range on TEXT (U+10FFFF sorts after every character). */
const PREFIX_END = '\u{10FFFF}';

/** Above this many name matches, walking entities by volume beats sorting the matches. */
const MANY_NAME_MATCHES = 2_000;

/** Reads of the entity records finish() computes (advertisers, webmasters, creatives, domains, apps) and the catalog. */
export class EntityReader {
  /** Whether the store has `entity_moving` (one written before it has not until a writer opens it). */
  private movingKept = false;

  constructor(
    private readonly db: DatabaseSync,
    private readonly cache: GenerationCache,
    private readonly live: { current(): ColumnsState | null },
  ) {}

  searchAdvertisers(query: NameQuery): AdvertiserMatch[] {
    return this.searchEntities<AdvertiserMatch>('advertiser', query).rows;
  }

  getAdvertiser(id: string): Advertiser | null {
    return this.entity<Advertiser>('advertiser', id, 'full_doc');
  }

  /**
   * Per day of the range, the advertiser's new and active ads: from its posting list in the columns (first and last
   * seen days per position), or, where the columns do not know it, from its rows. No SQL index holds the last seen days
   * (a re-sighting would move an entry of it: decisions/0019).
   */
  advertiserActivity(id: string, range: DateRange): ActivityDayData[] | null {
    if (this.docOf('advertiser', id, 'row_doc') === null) return null;
    const from = dayNumber(range.from);
    const to = dayNumber(range.to);
    const days = to - from + 1;
    const diff = new Int32Array(days + 1);
    const fresh = new Int32Array(days);
    const count = (f: number, l: number) => {
      if (f > to || l < from) return;
      diff[Math.max(f, from) - from] = (diff[Math.max(f, from) - from] ?? 0) + 1;
      diff[Math.min(l, to) - from + 1] = (diff[Math.min(l, to) - from + 1] ?? 0) - 1;
      if (f >= from) fresh[f - from] = (fresh[f - from] ?? 0) + 1;
    };
    const columnar = this.live.current()?.columnar;
    const positions = columnar?.advertiserPositions(id);
    if (columnar && positions) {
      const { first, last } = columnar.cols;
      for (const p of positions) count(first[p] ?? 0, last[p] ?? 0);
    } else {
      const ads = this.db
        .prepare('SELECT first_seen, last_seen FROM ads WHERE advertiser_id = ? AND first_seen <= ? AND last_seen >= ?')
        .all(id, range.to, range.from) as { first_seen: string; last_seen: string }[];
      for (const ad of ads) count(dayNumber(ad.first_seen), dayNumber(ad.last_seen));
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
    if (this.docOf('webmaster', id, 'row_doc') === null) return null;
    const params: SQLInputValue[] = [id];
    // The webmaster's advertisers are the keys of its `advertiser` counter (entity-facets.ts).
    let sql = `SELECT e.row_doc AS doc, e.ads_total AS total, e.id AS id FROM entity_facets f
      JOIN entities e ON e.kind = 'advertiser' AND e.id = f.key WHERE f.kind = 'webmaster' AND f.id = ? AND f.facet = 'advertiser'`;
    if (page.after) {
      sql += ' AND (e.ads_total < ? OR (e.ads_total = ? AND e.id > ?))';
      params.push(page.after.value, page.after.value, page.after.id);
    }
    sql += ' ORDER BY e.ads_total DESC, e.id ASC LIMIT ?';
    params.push(page.limit + 1);
    return this.keysetOf<AdvertiserMatch>('advertiser', this.db.prepare(sql).all(...params) as EntityHit[], page.limit);
  }

  searchCreatives(query: PagedNameQuery): KeysetPage<CreativeRow> {
    return this.searchEntities<CreativeRow>('creative', query);
  }

  getCreative(id: string): CreativeRecord | null {
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

  creativeRows(ids: readonly string[]): CreativeRow[] {
    if (!ids.length) return [];
    // One read by primary key for the whole list (the ids travel as one JSON array).
    const found = this.db
      .prepare("SELECT id, row_doc AS doc FROM entities WHERE kind = 'creative' AND id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(ids)) as { id: string; doc: string }[];
    const docs = new Map(this.withMoving<CreativeRow>('creative', found).map((doc, i) => [found[i]?.id, doc]));
    return ids.flatMap((id) => {
      const doc = docs.get(id);
      return doc === undefined ? [] : [doc];
    });
  }

  heldMedia(query: { adIds: readonly string[]; creativeIds: readonly string[] }): RecordMedia[] {
    if (!query.adIds.length && !query.creativeIds.length) return [];
    // The ads by their unique id, and each creative's first ad by the (creative_id, id) index.
    const rows = this.db
      .prepare(
        `SELECT json_extract(d.doc, '$.media') AS media FROM ads a JOIN ad_docs d ON d.rid = a.rid
         WHERE a.id IN (SELECT value FROM json_each(?))
         UNION ALL
         SELECT json_extract(d.doc, '$.media') FROM ads a JOIN ad_docs d ON d.rid = a.rid
         WHERE a.id IN (SELECT (SELECT min(id) FROM ads WHERE creative_id = c.value) FROM json_each(?) c)`,
      )
      .all(JSON.stringify(query.adIds), JSON.stringify(query.creativeIds)) as { media: string | null }[];
    return rows.flatMap((row) => (row.media ? (JSON.parse(row.media) as RecordMedia[]) : []));
  }

  creativePictureHashes(): CreativeHash[] {
    // The (creative_id, id) index gives each creative's first ad without a sort; its document holds the stored media.
    return this.db
      .prepare(
        `SELECT f.creative_id AS id, json_extract(d.doc, '$.media[0].stored.phash') AS phash
         FROM (SELECT creative_id, min(id) AS first FROM ads GROUP BY creative_id) f
         JOIN ads a ON a.id = f.first JOIN ad_docs d ON d.rid = a.rid
         WHERE phash IS NOT NULL ORDER BY f.creative_id`,
      )
      .all() as unknown as CreativeHash[];
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
    return this.cache.get('catalog', () => {
      const stored = this.db.prepare("SELECT value FROM meta WHERE key = 'catalog'").get() as { value: string } | undefined;
      return stored
        ? (JSON.parse(stored.value) as CatalogData)
        : { countries: [], categories: [], languages: [], firstSeenDate: null, lastSeenDate: null, coverage: [] };
    });
  }

  entity<T>(kind: EntityKind, id: string, column: 'row_doc' | 'full_doc'): T | null {
    const doc = this.docOf(kind, id, column);
    return doc === null ? null : (this.withMoving<T>(kind, [{ id, doc }])[0] ?? null);
  }

  /**
   * A record as last rendered: its moving values may be older than the row's (entity-moving.ts). For reads of what a
   * re-sighting never moves (names, platforms), one read instead of two.
   */
  renderedEntity<T>(kind: EntityKind, id: string, column: 'row_doc' | 'full_doc'): T | null {
    const doc = this.docOf(kind, id, column);
    return doc === null ? null : (JSON.parse(doc) as T);
  }

  private docOf(kind: EntityKind, id: string, column: 'row_doc' | 'full_doc'): string | null {
    const row = this.db.prepare(`SELECT ${column} AS doc FROM entities WHERE kind = ? AND id = ?`).get(kind, id) as { doc: string } | undefined;
    return row?.doc ?? null;
  }

  /** The parsed docs of records of one kind, with the moving values `entity_moving` holds current (entity-moving.ts). */
  private withMoving<T>(kind: EntityKind, rows: readonly { id: string; doc: string }[]): T[] {
    const docs = rows.map((row) => JSON.parse(row.doc) as T);
    this.movingKept ||= this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'entity_moving'").get() !== undefined;
    if (!docs.length || !this.movingKept) return docs;
    const found = this.db
      .prepare('SELECT id, active_ads, first_seen, last_seen FROM entity_moving WHERE kind = ? AND id IN (SELECT value FROM json_each(?))')
      .all(kind, JSON.stringify(rows.map((row) => row.id))) as unknown as (EntityMoving & { id: string })[];
    const moving = new Map(found.map((m) => [m.id, m]));
    return docs.map((doc, i) => withEntityMoving(doc, moving.get(rows[i]?.id ?? '')));
  }

  private keysetOf<T>(kind: EntityKind, rows: EntityHit[], limit: number): KeysetPage<T> {
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      rows: this.withMoving<T>(kind, page),
      hasMore: rows.length > limit,
      lastKey: last ? { value: last.total, id: last.id } : null,
    };
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
    return this.keysetOf<T>(kind, this.db.prepare(sql).all(...params) as EntityHit[], query.limit);
  }
}

type EntityHit = { doc: string; total: number; id: string };

/** What the ad documents carry beside the Ad (get_creative reads the media of its first ad). */
type StoredDoc = { media: RecordMedia[] };
