import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { getDomain } from 'tldts';
import type { AdSort } from '@adintel/contracts';
import type { AdFilter } from '../ad-store.port';
import { reverseHost } from '../text';
import type { GenerationCache } from './generation-cache';

/** An FTS5 query where every word must match, each as a quoted phrase (no operator injection). */
export const ftsQuery = (words: string[]) => words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');

/**
 * The SQL index each sort can scan in order; none for the values a sighting moves (decisions/0019): the columns walk
 * their orders (sort-orders.ts), and SQL sorts what a filter drives to.
 */
export const SORT_INDEX: Record<AdSort, string | null> = {
  date: 'ads_by_date',
  days_active: null,
  activity_days_amount: null,
  most_popular: null,
  impressions: null,
};

const ID_FILTERS = [
  ['advertiserId', 'advertiser_id', 'ads_by_advertiser', 'advertiser'],
  ['webmasterId', 'webmaster_id', 'ads_by_webmaster', 'webmaster'],
  ['appId', 'app_id', 'ads_by_app', 'app'],
  ['creativeId', 'creative_id', 'ads_by_creative', 'creative'],
] as const;

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

/** The cost-based choice of an SQL plan for an ad filter, from the value counts finish() stores. */
export class AdPlanner {
  private vocabReady = false;

  constructor(
    private readonly db: DatabaseSync,
    private readonly cache: GenerationCache,
  ) {}

  /**
   * Chooses how to run an ad query: scan the sort index and check every filter per row (cheap while
   * matches are common), or drive from the most selective filter and sort what it yields (when it
   * yields few rows). SQLite's planner cannot know how skewed countries or advertisers are; we do.
   * `sort`: the rows come sorted, by scanning `index` or (none) by sorting every match; absent for a count.
   */
  plan(filter: AdFilter, wanted: number, sort?: { index: string | null }): AdPlan {
    const sortIndex = sort?.index ?? null;
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
    if (filter.destinationType) selectivity *= 0.3;
    if (filter.dateFrom || filter.dateTo || filter.platforms || filter.status || filter.destinationType) checkCost += COST.columnCheck;

    const best = drivers.reduce<Driver | null>((b, d) => (!b || d.est < b.est ? d : b), null);
    // A scan stops after `wanted` matches, unless it must sort them without an index: then it reads every row.
    const scanCost = (sort && sortIndex === null ? n : Math.min(wanted, n) / Math.max(selectivity, 1 / n)) * checkCost;
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
    return this.cache.get('value_counts', () => {
      const row = this.db.prepare("SELECT value FROM meta WHERE key = 'value_counts'").get() as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as Stats) : { n: 0, countries: {}, categories: {} };
    });
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
}

type EntityKind = 'advertiser' | 'webmaster' | 'creative' | 'domain' | 'app';

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
  if (filter.destinationType) {
    clauses.push('ads.destination = ?');
    params.push(filter.destinationType);
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
