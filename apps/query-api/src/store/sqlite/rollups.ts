import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { AdColumnsBuilder, type ColumnSource, encodeAdColumns, writeWordBits } from './ad-columns';
import { type FacetSource, eachFacet, LoadTotals } from './entity-facets';
import { EntityRecords } from './entity-records';
import { ROLLUP_INDEXES } from './schema';

/** One row of the rollup scan: what the columns and the entity counters read of an ad. */
export interface AdRow extends ColumnSource {
  id: string;
  status: string;
  registrable: string;
  host: string;
  countries: string;
  categories: string;
  languages: string;
  advertiser_account: string;
}

/** The columns of the rollup scan (joined ads and ad_docs as `a` and `d`); live-columns.ts reads the same for a batch. */
export const AD_ROW_COLUMNS = `a.rid, a.id, a.activity_days, a.popularity, a.impressions, a.platform, a.advertiser_id, a.webmaster_id, a.app_id,
  a.creative_id, a.status, a.first_seen, a.last_seen, a.registrable, a.host_rev, d.host, a.creative_format, a.destination, d.countries, d.categories,
  d.languages, d.advertiser_name, d.advertiser_account, d.webmaster_name, d.app_doc, d.creative_title`;

/**
 * A row of AD_ROW_COLUMNS read as an array, as an AdRow (values in that order). node:sqlite makes an array of a row's
 * values in about half the CPU it takes to make an object of 26 properties, and the scan reads every row.
 */
function adRowOf(r: readonly SQLOutputValue[]): AdRow {
  return {
    rid: r[0] as number,
    id: r[1] as string,
    activity_days: r[2] as number,
    popularity: r[3] as number,
    impressions: r[4] as number,
    platform: r[5] as AdRow['platform'],
    advertiser_id: r[6] as string,
    webmaster_id: r[7] as string | null,
    app_id: r[8] as string | null,
    creative_id: r[9] as string,
    status: r[10] as string,
    first_seen: r[11] as string,
    last_seen: r[12] as string,
    registrable: r[13] as string,
    host_rev: r[14] as string,
    host: r[15] as string,
    creative_format: r[16] as AdRow['creative_format'],
    destination: r[17] as AdRow['destination'],
    countries: r[18] as string,
    categories: r[19] as string,
    languages: r[20] as string,
    advertiser_name: r[21] as string,
    advertiser_account: r[22] as string,
    webmaster_name: r[23] as string | null,
    app_doc: r[24] as string | null,
    creative_title: r[25] as string,
  };
}

const list = (joined: string) => (joined ? joined.split(',') : []);

/** An ad row as the entity counters read it. */
export function facetSourceOf(ad: AdRow): FacetSource {
  // Named field by field, not spread: a spread of the 26-column row costs more than the rest of this per ad.
  return {
    id: ad.id,
    platform: ad.platform,
    advertiser_id: ad.advertiser_id,
    advertiser_name: ad.advertiser_name,
    advertiser_account: ad.advertiser_account,
    webmaster_id: ad.webmaster_id,
    webmaster_name: ad.webmaster_name,
    app_id: ad.app_id,
    app_doc: ad.app_doc,
    creative_id: ad.creative_id,
    creative_format: ad.creative_format,
    status: ad.status,
    first_seen: ad.first_seen,
    last_seen: ad.last_seen,
    registrable: ad.registrable,
    host: ad.host,
    countries: list(ad.countries),
    categories: list(ad.categories),
    languages: list(ad.languages),
  };
}

/** The process's CPU seconds so far (a load's steps are timed in CPU: wall time on a shared machine tells little). */
export function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

export interface RollupOptions {
  /**
   * Words in at least `wordBitsMinShare` and at most `wordBitsMaxShare` of the ads get a bitset over the column
   * positions (see writeWordBits). Rarer words: FTS yields their few rows fast; commoner ones: the sort index
   * meets a match every few rows.
   */
  wordBitsMinShare: number;
  wordBitsMaxShare: number;
}

export const DEFAULT_ROLLUP_OPTIONS: RollupOptions = { wordBitsMinShare: 0.02, wordBitsMaxShare: 0.3 };

/**
 * Rebuilds every rollup from the ads table in one pass: the entity counters and records (advertisers, webmasters,
 * creatives, domains, apps; entity-records.ts), the name index, the catalog, the ad columns and the word bitsets (ad-columns.ts).
 */
export function buildRollups(db: DatabaseSync, timings: Record<string, number> = {}, options: RollupOptions = DEFAULT_ROLLUP_OPTIONS): void {
  let started = cpuSeconds();
  const lap = (name: string) => {
    timings[name] = cpuSeconds() - started;
    started = cpuSeconds();
  };
  const totals = new LoadTotals();
  /** Per creative, its ad with the lowest id and that ad's title (the port's rule for a creative's title). */
  const creativeTitles = new Map<string, { adId: string; title: string }>();
  const columns = new AdColumnsBuilder();

  const scan = db.prepare(`SELECT ${AD_ROW_COLUMNS} FROM ads a NOT INDEXED JOIN ad_docs d ON d.rid = a.rid ORDER BY a.rid`);
  scan.setReturnArrays(true);
  for (const values of scan.iterate() as IterableIterator<SQLOutputValue[]>) {
    const ad = adRowOf(values);
    const source = facetSourceOf(ad);
    eachFacet(source, 1, totals);
    const title = creativeTitles.get(ad.creative_id);
    if (!title || ad.id < title.adId) creativeTitles.set(ad.creative_id, { adId: ad.id, title: ad.creative_title });
    columns.add(ad, source.countries, source.categories, ad.status === 'active' ? 1 : 0);
  }

  lap('rollups.read');
  db.exec('BEGIN');
  try {
    db.exec('DELETE FROM trend_columns; DELETE FROM live_changes;');
    // Looked up where it is kept (a load has a creative for every three ads or so: no second map of them).
    const rendered = new EntityRecords(db).writeAll(totals, (id) => creativeTitles.get(id)?.title ?? '');
    lap('rollups.entities');
    columns.rename((kind, id) => rendered.get(kind)?.get(id));
    columns.rankIds(db.prepare('SELECT rid FROM ads ORDER BY id').iterate() as IterableIterator<{ rid: number }>);
    const insertColumn = db.prepare('INSERT INTO trend_columns (name, data) VALUES (?, ?)');
    const built = columns.build();
    for (const [name, data] of encodeAdColumns(built)) insertColumn.run(name, data);
    lap('rollups.columns');
    writeWordBits(db, built, insertColumn, options);
    lap('rollups.words');
    db.exec(ROLLUP_INDEXES);
    db.exec('COMMIT');
    lap('rollups.indexes');
  } catch (error) {
    db.exec('ROLLBACK');
    throw new Error('building the rollups failed', { cause: error });
  }
}
