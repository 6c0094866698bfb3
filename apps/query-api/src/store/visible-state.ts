import { createHash } from 'node:crypto';
import type { Ad, AdChange } from '@adintel/contracts';

/*
 * What the change feed (issue 36) calls a change, for every engine: an ad's VISIBLE state is its effective status
 * (active only while its last sighting is the data's day) and a digest of the fields an agent sees change. Dates,
 * activity counters, popularity and impressions are left out, so a re-sighting that only moves them is no change.
 * SQLite's change log and Elasticsearch's change position both keep these states and classify them the same way.
 */

/** The fields of a record (or of a stored doc, which carries the same names) that make its visible state. */
export type Visible = Pick<
  Ad,
  | 'title'
  | 'body'
  | 'landing_url'
  | 'landing_domain'
  | 'destination_type'
  | 'platform_name'
  | 'advertiser_id'
  | 'webmaster_id'
  | 'creative_id'
  | 'app_id'
  | 'creative_format'
  | 'countries'
  | 'languages'
  | 'categories'
  | 'status_today'
  | 'last_seen_date'
> & { media?: readonly { url: string }[] };

/** "<status>:<digest>" of an ad as of the data's day `day`. */
export function visibleState(ad: Visible, day: string): string {
  const sorted = (values: readonly string[]) => [...new Set(values)].sort();
  const digest = createHash('sha1')
    .update(
      JSON.stringify([
        ad.title,
        ad.body,
        ad.landing_url,
        ad.landing_domain,
        ad.destination_type,
        ad.platform_name,
        ad.advertiser_id,
        ad.webmaster_id,
        ad.creative_id,
        ad.app_id,
        ad.creative_format,
        sorted(ad.countries),
        sorted(ad.languages),
        sorted(ad.categories),
        (ad.media ?? []).map((m) => m.url),
      ]),
    )
    .digest('base64url');
  const active = ad.status_today === 'active' && ad.last_seen_date >= day;
  return `${active ? 'active' : 'inactive'}:${digest}`;
}

/** What an agent holding the state `before` (null: it never saw the ad) sees changed in `after`; null: nothing. */
export function classify(before: string | null, after: string): AdChange | null {
  if (before === null) return 'new';
  if (before === after) return null;
  const [wasStatus] = before.split(':');
  const [isStatus] = after.split(':');
  if (wasStatus === 'active' && isStatus === 'inactive') return 'ended';
  if (wasStatus === 'inactive' && isStatus === 'active') return 'resumed';
  return wasStatus === isStatus ? 'changed' : null;
}
