import { getDomain, parse } from 'tldts';
import { z } from 'zod';
import { AD_STATUSES, APP_STORES, CREATIVE_FORMATS, IsoDate, PLATFORMS } from '@adintel/contracts';
import type { AdRecord } from '../store/ad-store.port';
import { dayNumber } from '../store/text';
import { destinationOfParts } from './destinations';

const Id = z.string().min(1).max(128);
const Country = z.string().regex(/^[A-Z]{2}$/, 'must be an upper-case ISO 3166-1 alpha-2 code');
const Slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a lower-case slug');
const Language = z.string().regex(/^[a-z]{2,3}$/, 'must be an ISO 639 code');

/**
 * One media entry of a line: `url` is a file of the bundle (a path relative to the NDJSON file's folder), a `demo:`
 * picture, or an http(s) URL kept as it is (src/media/media-ingest.ts); a video names its poster frame in `poster`.
 */
const LineMedia = z.object({
  type: z.enum(['image', 'video']),
  url: z.string().min(1).max(2_000),
  width: z.int().positive().max(100_000),
  height: z.int().positive().max(100_000),
  duration_seconds: z.number().min(0).max(86_400).nullable(),
  poster: z.string().min(1).max(2_000).optional(),
});

/**
 * One line of the ingest NDJSON (documented in apps/query-api/README.md, "Ingest format").
 * Derived fields (landing_domain, destination_type, days_active, media_count) are computed, never read.
 */
export const AdLine = z
  .strictObject({
    id: Id,
    title: z.string().max(1_000),
    body: z.string().max(10_000),
    landing_url: z.url({ protocol: /^https?$/ }),
    platform_name: z.enum(PLATFORMS),
    advertiser: z.strictObject({ id: Id, name: z.string().min(1).max(300), account_id: z.string().min(1).max(128) }),
    webmaster: z.strictObject({ id: Id, name: z.string().min(1).max(300) }).nullable(),
    status_today: z.enum(AD_STATUSES),
    first_seen_date: IsoDate,
    last_seen_date: IsoDate,
    activity_days_amount: z.int().min(0),
    countries: z.array(Country).max(250),
    languages: z.array(Language).max(50),
    categories: z.array(Slug).max(50),
    creative: z.strictObject({ id: Id, format: z.enum(CREATIVE_FORMATS), title: z.string().max(1_000).optional() }),
    media: z.array(LineMedia).max(50),
    app: z
      .strictObject({ id: Id, name: z.string().min(1).max(300), store: z.enum(APP_STORES), bundle_id: z.string().min(1).max(300) })
      .nullable(),
    impressions: z.int().min(0),
    popularity: z.number().min(0),
  })
  .superRefine((line, ctx) => {
    if (line.first_seen_date > line.last_seen_date) {
      ctx.addIssue({ code: 'custom', path: ['last_seen_date'], message: 'must not be before first_seen_date' });
    }
    const span = dayNumber(line.last_seen_date) - dayNumber(line.first_seen_date) + 1;
    if (line.activity_days_amount > span) {
      ctx.addIssue({ code: 'custom', path: ['activity_days_amount'], message: `must not exceed the ${span} days seen` });
    }
    const host = hostOf(line.landing_url);
    if (!host || !getDomain(host)) {
      ctx.addIssue({ code: 'custom', path: ['landing_url'], message: 'must have a host under a public suffix' });
    }
  });
export type AdLine = z.infer<typeof AdLine>;

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

/**
 * dayNumber of an ISO date, remembered: a line's check and record took four Date.parse calls (1 s of CPU in a load of
 * 1M lines), and a file's dates are a few hundred distinct days (the memory is bounded all the same).
 */
export function dayOf(date: string): number {
  let day = DAYS.get(date);
  if (day === undefined) {
    day = dayNumber(date);
    if (DAYS.size < 100_000) DAYS.set(date, day);
  }
  return day;
}
const DAYS = new Map<string, number>();

/** A validated line -> the record every store writes. */
export function toAdRecord(line: AdLine): AdRecord {
  return toAdRecordOf(line, URL.parse(line.landing_url));
}

/**
 * toAdRecord with the landing URL already parsed (`url`, null when it does not parse): the ingest's checks parse it
 * once (ingest-line.ts), and the host's public-suffix lookup is made once for the registrable domain and the
 * destination both.
 */
export function toAdRecordOf(line: AdLine, url: URL | null): AdRecord {
  const host = url ? url.hostname.toLowerCase().replace(/\.$/, '') : '';
  const domain = parse(host);
  return {
    id: line.id,
    title: line.title,
    body: line.body,
    landing_domain: host,
    landing_url: line.landing_url,
    destination_type: url ? destinationOfParts(host, domain.domainWithoutSuffix, url.pathname) : 'website',
    platform_name: line.platform_name,
    advertiser_id: line.advertiser.id,
    webmaster_id: line.webmaster?.id ?? null,
    status_today: line.status_today,
    days_active: dayOf(line.last_seen_date) - dayOf(line.first_seen_date),
    first_seen_date: line.first_seen_date,
    last_seen_date: line.last_seen_date,
    countries: [...new Set(line.countries)],
    languages: [...new Set(line.languages)],
    categories: [...new Set(line.categories)],
    creative_format: line.creative.format,
    media_count: line.media.length,
    creative_id: line.creative.id,
    app_id: line.app?.id ?? null,
    impressions: line.impressions,
    popularity: line.popularity,
    activity_days_amount: line.activity_days_amount,
    media: line.media,
    registrable_domain: domain.domain ?? host,
    advertiser_name: line.advertiser.name,
    advertiser_account_id: line.advertiser.account_id,
    webmaster_name: line.webmaster?.name ?? null,
    creative_title: line.creative.title ?? line.title,
    app: line.app,
  };
}
