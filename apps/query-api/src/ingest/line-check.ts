import { getDomain } from 'tldts';
import { regexes } from 'zod/v4/core';
import { AD_STATUSES, APP_STORES, CREATIVE_FORMATS, PLATFORMS } from '@adintel/contracts';
import { type AdLine, dayOf } from './ad-line';

/**
 * The ingest's quick check of a parsed NDJSON line, by hand: AdLine (zod) spent more CPU on a valid line than
 * writing it to SQLite, and a load's lines are nearly all valid. It accepts only lines AdLine accepts, and gives
 * what AdLine would give for them (the same values; the media and app objects, which are stored as they are, with
 * their keys in AdLine's order). Anything else, including what it is unsure of (a landing URL with spaces, which zod
 * trims), returns null: the caller then asks AdLine, which accepts the line or names the field it rejects.
 * ad-line.ts is the format's definition: a rule changed there must be changed here (line-check.spec.ts compares both).
 */
export function checkedLine(raw: unknown): { line: AdLine; url: URL } | null {
  if (!isRecord(raw) || !onlyKeys(raw, LINE_KEYS)) return null;
  const { advertiser, webmaster, creative, app } = raw;
  if (
    !isId(raw.id) ||
    !isString(raw.title, 0, 1_000) ||
    !isString(raw.body, 0, 10_000) ||
    !PLATFORM_SET.has(raw.platform_name as string) ||
    !STATUS_SET.has(raw.status_today as string) ||
    !isDate(raw.first_seen_date) ||
    !isDate(raw.last_seen_date) ||
    !isCount(raw.activity_days_amount) ||
    !isCount(raw.impressions) ||
    !(typeof raw.popularity === 'number' && Number.isFinite(raw.popularity) && raw.popularity >= 0) ||
    !everyMatches(raw.countries, 250, COUNTRY) ||
    !everyMatches(raw.languages, 50, LANGUAGE) ||
    !everyMatches(raw.categories, 50, SLUG) ||
    !(isRecord(advertiser) && onlyKeys(advertiser, ADVERTISER_KEYS) && isId(advertiser.id) && isString(advertiser.name, 1, 300) && isString(advertiser.account_id, 1, 128)) ||
    !(webmaster === null || (isRecord(webmaster) && onlyKeys(webmaster, WEBMASTER_KEYS) && isId(webmaster.id) && isString(webmaster.name, 1, 300))) ||
    !(
      isRecord(creative) &&
      onlyKeys(creative, CREATIVE_KEYS) &&
      isId(creative.id) &&
      FORMAT_SET.has(creative.format as string) &&
      (!('title' in creative) || isString(creative.title, 0, 1_000))
    ) ||
    !(app === null || (isRecord(app) && onlyKeys(app, APP_KEYS) && isId(app.id) && isString(app.name, 1, 300) && STORE_SET.has(app.store as string) && isString(app.bundle_id, 1, 300)))
  ) {
    return null;
  }
  const media = checkedMedia(raw.media);
  if (!media) return null;

  // z.url({ protocol: /^https?$/ }): zod trims the value and drops tabs and line breaks; a URL with none of those (nor
  // other control characters), starting with the scheme, is left as it is. Others go to zod.
  const landingUrl = raw.landing_url;
  if (typeof landingUrl !== 'string' || !PLAIN_HTTP_URL.test(landingUrl)) return null;
  const url = URL.parse(landingUrl);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;

  // AdLine's superRefine.
  const first = raw.first_seen_date as string;
  const last = raw.last_seen_date as string;
  if (first > last || (raw.activity_days_amount as number) > dayOf(last) - dayOf(first) + 1) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (!host || !getDomain(host)) return null;

  // The parsed line is the caller's own: the objects stored as they are get AdLine's key order in place.
  raw.media = media;
  // ad_docs.app_doc.
  raw.app = app === null ? null : { id: app.id, name: app.name, store: app.store, bundle_id: app.bundle_id };
  return { line: raw as unknown as AdLine, url };
}

type Fields = Record<string, unknown>;

const LINE_KEYS = new Set([
  'id', 'title', 'body', 'landing_url', 'platform_name', 'advertiser', 'webmaster', 'status_today', 'first_seen_date', 'last_seen_date',
  'activity_days_amount', 'countries', 'languages', 'categories', 'creative', 'media', 'app', 'impressions', 'popularity',
]);
const ADVERTISER_KEYS = new Set(['id', 'name', 'account_id']);
const WEBMASTER_KEYS = new Set(['id', 'name']);
const CREATIVE_KEYS = new Set(['id', 'format', 'title']);
const APP_KEYS = new Set(['id', 'name', 'store', 'bundle_id']);
const MEDIA_KEYS = new Set(['type', 'url', 'width', 'height', 'duration_seconds', 'poster']);

const PLATFORM_SET = new Set<string>(PLATFORMS);
const STATUS_SET = new Set<string>(AD_STATUSES);
const FORMAT_SET = new Set<string>(CREATIVE_FORMATS);
const STORE_SET = new Set<string>(APP_STORES);

// The patterns of ad-line.ts (Country, Language, Slug) and of IsoDate (zod's date format).
const COUNTRY = /^[A-Z]{2}$/;
const LANGUAGE = /^[a-z]{2,3}$/;
const SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const DATE = regexes.date;
/** An http(s) URL without whitespace (what String.trim removes is what \s matches) or control characters. */
// eslint-disable-next-line no-control-regex
const PLAIN_HTTP_URL = /^https?:\/\/[^\s\u0000-\u001f\u007f]*$/;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A strict object: no key besides these (the required ones are checked by their values). */
function onlyKeys(value: Fields, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

const isString = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && value.length >= min && value.length <= max;
const isId = (value: unknown): value is string => isString(value, 1, 128);
/** z.int().min(0): a safe integer, not negative. */
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isDate = (value: unknown): value is string => typeof value === 'string' && DATE.test(value);
const isPositiveInt = (value: unknown, max: number) => Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= max;

function everyMatches(value: unknown, max: number, pattern: RegExp): boolean {
  if (!Array.isArray(value) || value.length > max) return false;
  for (const item of value) if (typeof item !== 'string' || !pattern.test(item)) return false;
  return true;
}

/** The media entries, rebuilt in AdLine's key order (stored as they are, in the doc); null when one is not plainly valid. */
function checkedMedia(value: unknown): AdLine['media'] | null {
  if (!Array.isArray(value) || value.length > 50) return null;
  const media: AdLine['media'] = [];
  for (const m of value) {
    if (!isRecord(m) || !onlyKeys(m, MEDIA_KEYS)) return null;
    const { type, url, width, height, duration_seconds: duration, poster } = m;
    if (
      (type !== 'image' && type !== 'video') ||
      !isString(url, 1, 2_000) ||
      !isPositiveInt(width, 100_000) ||
      !isPositiveInt(height, 100_000) ||
      !(duration === null || (typeof duration === 'number' && duration >= 0 && duration <= 86_400)) ||
      ('poster' in m && !isString(poster, 1, 2_000))
    ) {
      return null;
    }
    media.push(
      'poster' in m
        ? { type, url, width: width as number, height: height as number, duration_seconds: duration, poster: poster as string }
        : { type, url, width: width as number, height: height as number, duration_seconds: duration },
    );
  }
  return media;
}
