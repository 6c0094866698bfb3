import { getDomain } from 'tldts';
import { AdLine, toAdRecord } from '../../src/ingest/ad-line';
import { destinationOf } from '../../src/ingest/destinations';
import { generateDemoAds } from '../../src/ingest/demo-generator';
import { parseAdLine } from '../../src/ingest/ingest';
import { checkedLine } from '../../src/ingest/line-check';
import { toAdRecordOf } from '../../src/ingest/ad-line';
import { FIXTURE_LINES } from '../store/store-fixture';

/** What zod makes of a line: the record (as stored: JSON, key order included), or null when it rejects it. */
function byZod(text: string): string | null {
  const parsed = AdLine.safeParse(JSON.parse(text));
  return parsed.success ? JSON.stringify(toAdRecord(parsed.data)) : null;
}

/** What the quick check makes of it: the record, or null when it leaves the line to zod. */
function byCheck(text: string): string | null {
  const checked = checkedLine(JSON.parse(text));
  return checked ? JSON.stringify(toAdRecordOf(checked.line, checked.url)) : null;
}

const base = {
  ...FIXTURE_LINES[0],
  webmaster: { id: 'wm_1', name: 'Web Master' },
  creative: { id: 'cr_9', format: 'video', title: 'A creative' },
  media: [
    { type: 'video', url: 'https://cdn.test/v.mp4', width: 640, height: 360, duration_seconds: 12.5, poster: 'https://cdn.test/v.jpg' },
    { type: 'image', url: 'pictures/1.jpg', width: 100, height: 100, duration_seconds: null },
  ],
  app: { id: 'app_1', name: 'App', store: 'google_play', bundle_id: 'com.app' },
} as Record<string, unknown>;

const media0 = (base.media as Record<string, unknown>[])[0] as Record<string, unknown>;
const mediaWith = (changes: Record<string, unknown>) => ({ ...base, media: [{ ...media0, ...changes }] });
const without = (object: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

/** Lines around the edges of every rule of AdLine, valid and not. */
const VARIANTS: [string, unknown][] = [
  ['base', base],
  ['no webmaster, no app, no creative title', { ...base, webmaster: null, app: null, creative: { id: 'cr_9', format: 'image' } }],
  ['keys in another order', Object.fromEntries(Object.entries(base).reverse())],
  ['media keys in another order', { ...base, media: [Object.fromEntries(Object.entries(media0).reverse())] }],
  ['app keys in another order', { ...base, app: { bundle_id: 'com.app', store: 'app_store', name: 'App', id: 'app_1' } }],
  ['extra key', { ...base, extra: 1 }],
  ['extra advertiser key', { ...base, advertiser: { ...(base.advertiser as object), x: 1 } }],
  ['extra webmaster key', { ...base, webmaster: { id: 'w', name: 'n', x: 1 } }],
  ['extra creative key', { ...base, creative: { id: 'c', format: 'image', x: 1 } }],
  ['extra app key', { ...base, app: { ...(base.app as object), x: 1 } }],
  ['extra media key', mediaWith({ x: 1 })],
  ['missing id', without(base, 'id')],
  ['missing media', without(base, 'media')],
  ['missing webmaster', without(base, 'webmaster')],
  ['empty id', { ...base, id: '' }],
  ['id of 128', { ...base, id: 'x'.repeat(128) }],
  ['id of 129', { ...base, id: 'x'.repeat(129) }],
  ['numeric id', { ...base, id: 7 }],
  ['title of 1000', { ...base, title: 't'.repeat(1_000) }],
  ['title of 1001', { ...base, title: 't'.repeat(1_001) }],
  ['body of 10001', { ...base, body: 'b'.repeat(10_001) }],
  ['null title', { ...base, title: null }],
  ['unknown platform', { ...base, platform_name: 'myspace' }],
  ['unknown status', { ...base, status_today: 'paused' }],
  ['not a date', { ...base, first_seen_date: '2026-1-05' }],
  ['no such day', { ...base, first_seen_date: '2025-02-29' }],
  ['leap day', { ...base, first_seen_date: '2024-02-29' }],
  ['first after last', { ...base, first_seen_date: '2026-02-01' }],
  ['activity past the span', { ...base, activity_days_amount: 32 }],
  ['activity of the whole span', { ...base, activity_days_amount: 31 }],
  ['negative activity', { ...base, activity_days_amount: -1 }],
  ['fractional activity', { ...base, activity_days_amount: 1.5 }],
  ['unsafe impressions', { ...base, impressions: 2 ** 53 }],
  ['string impressions', { ...base, impressions: '5' }],
  ['negative popularity', { ...base, popularity: -0.5 }],
  ['zero popularity', { ...base, popularity: 0 }],
  ['lower-case country', { ...base, countries: ['us'] }],
  ['numeric country', { ...base, countries: [1] }],
  ['251 countries', { ...base, countries: Array.from({ length: 251 }, () => 'US') }],
  ['duplicate countries', { ...base, countries: ['US', 'US', 'CA'] }],
  ['bad language', { ...base, languages: ['english'] }],
  ['bad category', { ...base, categories: ['Retail'] }],
  ['category of 64', { ...base, categories: ['a'.repeat(64)] }],
  ['category of 65', { ...base, categories: ['a'.repeat(65)] }],
  ['countries not an array', { ...base, countries: 'US' }],
  ['advertiser without account', { ...base, advertiser: { id: 'a', name: 'n' } }],
  ['advertiser with an empty name', { ...base, advertiser: { id: 'a', name: '', account_id: 'x' } }],
  ['webmaster an array', { ...base, webmaster: [] }],
  ['unknown format', { ...base, creative: { id: 'c', format: 'gif' } }],
  ['null creative title', { ...base, creative: { id: 'c', format: 'image', title: null } }],
  ['unknown app store', { ...base, app: { ...(base.app as object), store: 'f-droid' } }],
  ['zero width', mediaWith({ width: 0 })],
  ['wide', mediaWith({ width: 100_001 })],
  ['fractional height', mediaWith({ height: 1.5 })],
  ['long video', mediaWith({ duration_seconds: 86_401 })],
  ['negative duration', mediaWith({ duration_seconds: -1 })],
  ['empty poster', mediaWith({ poster: '' })],
  ['null poster', mediaWith({ poster: null })],
  ['unknown media type', mediaWith({ type: 'audio' })],
  ['empty media url', mediaWith({ url: '' })],
  ['51 media', { ...base, media: Array.from({ length: 51 }, () => media0) }],
  ['media not objects', { ...base, media: ['x'] }],
  ['ftp url', { ...base, landing_url: 'ftp://example.com/' }],
  ['url without slashes', { ...base, landing_url: 'http:example.com' }],
  ['url with spaces around', { ...base, landing_url: '  https://example.com/a  ' }],
  ['url with a line break', { ...base, landing_url: 'https://exa\nmple.com/' }],
  ['url with a tab in the path', { ...base, landing_url: 'https://example.com/a\tb' }],
  ['upper-case scheme', { ...base, landing_url: 'HTTPS://Example.COM/Shop' }],
  ['url with a port and a query', { ...base, landing_url: 'http://shop.example.co.uk:8080/products/x?y=1#z' }],
  ['url with a trailing dot', { ...base, landing_url: 'https://www.example.com./' }],
  ['no public suffix', { ...base, landing_url: 'http://localhost/' }],
  ['ip host', { ...base, landing_url: 'http://10.0.0.1/' }],
  ['not a url', { ...base, landing_url: 'https://' }],
  ['app store url', { ...base, landing_url: 'https://play.google.com/store/apps/details?id=x' }],
  ['marketplace url', { ...base, landing_url: 'https://www.amazon.co.uk/dp/1' }],
  ['an array', [base]],
  ['null', null],
  ['a string', 'line'],
];

describe('the quick line check (line-check.ts) beside AdLine', () => {
  it.each(VARIANTS)('%s: accepted only when zod accepts it, with the same record', (_name, value) => {
    const text = JSON.stringify(value);
    const check = byCheck(text);
    if (check !== null) expect(check).toBe(byZod(text));
    // Whatever the check leaves to zod, the ingest's answer is zod's: the record, or the field named.
    const parsed = parseAdLine(text, 3);
    const zod = byZod(text);
    if (zod === null) {
      expect(parsed).toHaveProperty('rejected');
      const raw = JSON.parse(text) as unknown;
      const failed = AdLine.safeParse(raw);
      expect('rejected' in parsed && parsed.rejected.line).toBe(3);
      expect(failed.success).toBe(false);
    } else {
      expect('record' in parsed && JSON.stringify(parsed.record)).toBe(zod);
    }
  });

  it('takes the plainly valid lines itself, so zod is not asked for them', () => {
    for (const name of ['base', 'no webmaster, no app, no creative title', 'keys in another order', 'media keys in another order', 'app keys in another order']) {
      expect(byCheck(JSON.stringify(VARIANTS.find(([n]) => n === name)?.[1]))).not.toBeNull();
    }
  });

  it('gives the records zod gives for the demo lines and the fixtures, destinations and domains as before', () => {
    const lines = [...generateDemoAds(3_000, 17), ...FIXTURE_LINES];
    for (const line of lines) {
      const text = JSON.stringify(line);
      const check = byCheck(text);
      expect(check).not.toBeNull();
      expect(check).toBe(byZod(text));
      const record = JSON.parse(check as string) as { landing_domain: string; registrable_domain: string; destination_type: string };
      expect(record.registrable_domain).toBe(getDomain(record.landing_domain) ?? record.landing_domain);
      expect(record.destination_type).toBe(destinationOf(line.landing_url));
    }
  });

  it('rejects with zod\'s reasons, naming the field', () => {
    const reasonOf = (value: unknown) => {
      const parsed = parseAdLine(JSON.stringify(value), 1);
      return 'rejected' in parsed ? parsed.rejected.reason : null;
    };
    expect(reasonOf({ ...base, platform_name: 'myspace' })).toMatch(/^platform_name:/);
    expect(reasonOf(mediaWith({ width: 0 }))).toMatch(/^media\.0\.width:/);
    expect(reasonOf({ ...base, first_seen_date: '2026-02-01' })).toMatch(/^last_seen_date: must not be before first_seen_date/);
    expect(reasonOf({ ...base, activity_days_amount: 32 })).toMatch(/^activity_days_amount: must not exceed the 31 days seen/);
    expect(reasonOf({ ...base, landing_url: 'http://localhost/' })).toMatch(/^landing_url: must have a host under a public suffix/);
    expect(reasonOf({ ...base, extra: 1 })).toMatch(/^extra:/);
  });
});
