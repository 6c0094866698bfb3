import { hash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AdRecord } from '../ad-store.port';

/**
 * What a re-sighting moves (ADR 0017): status, last seen, days active, activity days, popularity, impressions. The
 * `ads` row holds them; the stored doc (`ad_docs.doc`) keeps its copy from when it was last written, so a re-sighting
 * that moves only these values writes the row alone. Every reader of a doc takes them from the row (`withMoving`).
 */

/** The moving columns of `ads` (aliased `a`), as `withMoving` reads them. */
export const MOVING_COLUMNS = 'a.status, a.last_seen, a.days_active, a.activity_days, a.popularity, a.impressions';

/** A row's moving values (MOVING_COLUMNS). */
export interface MovingRow {
  status: AdRecord['status_today'];
  last_seen: string;
  days_active: number;
  activity_days: number;
  popularity: number;
  impressions: number;
}

/** The doc's fields of the moving values (toStoredDoc's names). */
export interface MovingFields {
  status_today: AdRecord['status_today'];
  last_seen_date: string;
  days_active: number;
  activity_days_amount: number;
  popularity: number;
  impressions: number;
}

/**
 * The parsed doc with the row's moving values, in place (each keeps its place among the doc's keys, so the object
 * reads as it did when the doc held them).
 */
export function withMoving<T extends MovingFields>(doc: T, row: MovingRow): T {
  doc.status_today = row.status;
  doc.last_seen_date = row.last_seen;
  doc.days_active = row.days_active;
  doc.activity_days_amount = row.activity_days;
  doc.popularity = row.popularity;
  doc.impressions = row.impressions;
  return doc;
}

/** Whether the record's moving values are the row's. */
export function sameMoving(row: MovingRow, ad: AdRecord): boolean {
  return (
    row.status === ad.status_today &&
    row.last_seen === ad.last_seen_date &&
    row.days_active === ad.days_active &&
    row.activity_days === ad.activity_days_amount &&
    row.popularity === ad.popularity &&
    row.impressions === ad.impressions
  );
}

/**
 * `ad_docs.content` as this version writes it: a digest of what the stored ad keeps (everything apart from the
 * moving values), marked so a digest an earlier version wrote (of the whole record: base64url, no ':') is told apart.
 */
const KEPT_MARK = 'k:';

/** Whether a stored digest is of the kept fields (this version's), not of the whole record (an earlier store's). */
export const isKeptDigest = (content: string) => content.startsWith(KEPT_MARK);

/** The kept fields in a fixed order: what toStoredDoc and ad_docs' columns store, less the moving values. */
type Kept = readonly [
  id: string,
  title: string,
  body: string,
  landing_domain: string,
  landing_url: string,
  destination_type: string,
  platform_name: string,
  advertiser_id: string,
  webmaster_id: string | null,
  first_seen_date: string,
  countries: readonly string[],
  languages: readonly string[],
  categories: readonly string[],
  creative_format: string,
  media_count: number,
  creative_id: string,
  app_id: string | null,
  media: unknown,
  registrable_domain: string,
  advertiser_name: string,
  advertiser_account_id: string,
  webmaster_name: string | null,
  creative_title: string,
  app_doc: string | null,
];

function digestOf(kept: Kept): string {
  // The one-shot hash: no Hash object per ad (a load digests every ad).
  return KEPT_MARK + hash('sha1', JSON.stringify(kept), 'base64url');
}

/** The kept digest of a record (a sighting, its media resolved against the stored ad's). */
export function keptDigest(ad: AdRecord): string {
  return digestOf([
    ad.id,
    ad.title,
    ad.body,
    ad.landing_domain,
    ad.landing_url,
    ad.destination_type,
    ad.platform_name,
    ad.advertiser_id,
    ad.webmaster_id,
    ad.first_seen_date,
    ad.countries,
    ad.languages,
    ad.categories,
    ad.creative_format,
    ad.media_count,
    ad.creative_id,
    ad.app_id,
    ad.media,
    ad.registrable_domain,
    ad.advertiser_name,
    ad.advertiser_account_id,
    ad.webmaster_name,
    ad.creative_title,
    ad.app ? JSON.stringify(ad.app) : null,
  ]);
}

/** What storedKeptDigest reads of a stored ad: its doc's fields and the ad_docs/ads columns that hold the rest. */
export interface StoredKept {
  doc: Pick<
    AdRecord,
    | 'id'
    | 'title'
    | 'body'
    | 'landing_domain'
    | 'landing_url'
    | 'destination_type'
    | 'platform_name'
    | 'advertiser_id'
    | 'webmaster_id'
    | 'first_seen_date'
    | 'countries'
    | 'languages'
    | 'categories'
    | 'creative_format'
    | 'media_count'
    | 'creative_id'
    | 'app_id'
    | 'media'
  >;
  row: { registrable: string; advertiser_name: string; advertiser_account: string; webmaster_name: string | null; creative_title: string; app_doc: string | null };
}

/**
 * The kept digest of a stored ad, from its doc and row: for a store an earlier version wrote (its `content` digests
 * the whole record, moving values included), so its re-sightings take the row-only path without a reload.
 */
export function storedKeptDigest({ doc, row }: StoredKept): string {
  return digestOf([
    doc.id,
    doc.title,
    doc.body,
    doc.landing_domain,
    doc.landing_url,
    doc.destination_type,
    doc.platform_name,
    doc.advertiser_id,
    doc.webmaster_id,
    doc.first_seen_date,
    doc.countries,
    doc.languages,
    doc.categories,
    doc.creative_format,
    doc.media_count,
    doc.creative_id,
    doc.app_id,
    doc.media,
    row.registrable,
    row.advertiser_name,
    row.advertiser_account,
    row.webmaster_name,
    row.creative_title,
    row.app_doc,
  ]);
}

/** Each moving value: its column in `ads` and its field in a record. */
const MOVING: readonly { column: keyof MovingRow; value: (ad: AdRecord) => string | number }[] = [
  { column: 'status', value: (ad) => ad.status_today },
  { column: 'last_seen', value: (ad) => ad.last_seen_date },
  { column: 'days_active', value: (ad) => ad.days_active },
  { column: 'activity_days', value: (ad) => ad.activity_days_amount },
  { column: 'popularity', value: (ad) => ad.popularity },
  { column: 'impressions', value: (ad) => ad.impressions },
];

/**
 * Writes a row's moving values when one of them changed. No index holds a moving value (decisions/0019), so setting
 * all of them writes the same pages as setting the changed ones (before, an index entry of every column set was
 * rewritten, changed or not, and a statement per set of changed columns spared them).
 */
export class MovingUpdates {
  private readonly update: StatementSync;

  constructor(db: DatabaseSync) {
    this.update = db.prepare(`UPDATE ads SET ${MOVING.map(({ column }) => `${column} = ?`).join(', ')} WHERE rid = ?`);
  }

  /** Sets the record's moving values on the row `rid`, whose stored values are `row`. */
  run(rid: number, row: MovingRow, ad: AdRecord): void {
    if (MOVING.every(({ column, value }) => row[column] === value(ad))) return;
    this.update.run(...MOVING.map(({ value }) => value(ad)), rid);
  }
}
