import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { CONTRACT_CATEGORY_SLUGS, type CreativeFormat, type Platform } from '@adintel/contracts';
import { addDays } from '../store/text';
import { demoCallToAction, demoMediaUrl, RECUT_KINDS, type DemoCreativeSpec } from '../media/demo-creative';
import type { AdLine } from './ad-line';

/**
 * Deterministic demo data with a realistic shape: the same seed and count always give the same
 * lines. Dates end at DEMO_END_DATE, so "today" (the latest last_seen_date) is that day.
 */
const DEMO_END_DATE = '2026-11-15';
const DEMO_DAYS = 365;
/** The day `n` days before DEMO_END_DATE (0 <= n < DEMO_DAYS), from a table: two date conversions per ad add up. */
const DAYS_BEFORE_END = Array.from({ length: DEMO_DAYS }, (_, n) => addDays(DEMO_END_DATE, -n));
const daysBeforeEnd = (n: number): string => DAYS_BEFORE_END[n] ?? addDays(DEMO_END_DATE, -n);
export const DEFAULT_SEED = 20_260_115;

/** mulberry32: small, fast, good enough for demo data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Sampler of indices 0..n-1 with weight 1/(i+1)^s (Zipf). */
function zipf(n: number, s: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cumulative[i] = sum += 1 / Math.pow(i + 1, s);
  return () => {
    const target = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const COUNTRIES = [
  ['US', 'en'], ['GB', 'en'], ['DE', 'de'], ['FR', 'fr'], ['BR', 'pt'], ['IN', 'en'], ['ES', 'es'], ['IT', 'it'],
  ['CA', 'en'], ['MX', 'es'], ['AU', 'en'], ['NL', 'nl'], ['PL', 'pl'], ['TR', 'tr'], ['JP', 'ja'], ['KR', 'ko'],
  ['ID', 'id'], ['PH', 'en'], ['VN', 'vi'], ['TH', 'th'], ['AR', 'es'], ['CO', 'es'], ['CL', 'es'], ['PE', 'es'],
  ['ZA', 'en'], ['NG', 'en'], ['EG', 'ar'], ['SA', 'ar'], ['AE', 'ar'], ['SE', 'sv'], ['NO', 'no'], ['DK', 'da'],
  ['FI', 'fi'], ['BE', 'nl'], ['AT', 'de'], ['CH', 'de'], ['PT', 'pt'], ['IE', 'en'], ['CZ', 'cs'], ['RO', 'ro'],
  ['HU', 'hu'], ['GR', 'el'], ['UA', 'uk'], ['KZ', 'ru'], ['IL', 'he'], ['MY', 'ms'], ['SG', 'en'], ['NZ', 'en'],
  ['PK', 'ur'], ['BD', 'bn'], ['KE', 'en'], ['MA', 'ar'], ['DZ', 'ar'], ['EC', 'es'], ['UY', 'es'], ['BG', 'bg'],
  ['RS', 'sr'], ['HR', 'hr'], ['SK', 'sk'], ['LT', 'lt'],
] as const;

const CATEGORIES = [
  ...CONTRACT_CATEGORY_SLUGS,
  'mobile_games', 'travel_and_hospitality', 'education_and_courses', 'beauty_and_cosmetics', 'fashion_and_apparel',
  'food_and_delivery', 'automotive', 'real_estate', 'crypto_and_trading', 'insurance', 'software_and_saas',
  'fitness_and_wellness', 'home_and_garden', 'entertainment_and_streaming', 'telecom', 'nutrition_and_supplements',
  'pets', 'jobs_and_recruiting', 'events_and_tickets', 'nonprofit_and_charity',
];

const CATEGORY_WORDS: Record<string, string[]> = {
  gambling_and_betting: ['casino', 'bonus', 'spins', 'jackpot', 'odds', 'bet'],
  finance_and_banking: ['loan', 'credit', 'savings', 'bank', 'card', 'cashback'],
  dating_and_relationships: ['dating', 'singles', 'match', 'love', 'chat'],
  ecommerce_and_retail: ['sale', 'discount', 'shop', 'deal', 'shipping'],
  healthcare_and_medical: ['clinic', 'doctor', 'health', 'therapy', 'care'],
  crypto_and_trading: ['crypto', 'bitcoin', 'trading', 'exchange', 'wallet'],
  mobile_games: ['game', 'play', 'level', 'quest', 'puzzle'],
};
const GENERIC_WORDS = ['new', 'best', 'today', 'free', 'offer', 'premium', 'fast', 'easy', 'top', 'exclusive', 'official'];
const SYLLABLES = ['no', 'va', 'lux', 'zen', 'ka', 'tro', 'mi', 'ra', 'vel', 'qu', 'on', 'bit', 'sol', 'tek', 'ar', 'fin', 'ly', 'max'];
const COMPANY_SUFFIXES = ['Ltd', 'Inc', 'Group', 'Media', 'Labs', 'Co', 'Digital', 'Partners'];
const TLDS = ['com', 'com', 'com', 'net', 'io', 'co.uk', 'com.br', 'de', 'app', 'shop', 'com.au'];
const SUBDOMAINS = ['', '', 'www', 'promo', 'shop', 'lp', 'go', 'offers.eu'];
const FORMATS: CreativeFormat[] = ['image', 'image', 'video', 'video', 'carousel', 'text'];

interface AdvertiserSeed {
  id: string;
  name: string;
  platforms: Platform[];
  accounts: Record<Platform, string>;
  domains: string[];
  categories: string[];
  home: number;
  creatives: DemoCreativeSeed[];
  /** Its visual creatives that start a family (not recuts), stills and videos apart: the ones a recut copies. */
  familyRoots: { still: DemoCreativeSeed[]; video: DemoCreativeSeed[] };
  app: AdLine['app'];
}

/** A demo creative, and what its pictures show (the family's design, the recut's change). */
interface DemoCreativeSeed {
  id: string;
  format: CreativeFormat;
  title: string;
  /** The picture of its first card; cards 1.. follow the same design (demoMediaUrl). */
  picture: Omit<DemoCreativeSpec, 'card'>;
  /** Pictures per ad: a carousel's cards, one for an image or a video's poster frame, none for text. */
  cards: number;
  /** Its pictures' URLs, one per card: the same for every ad of the creative, so made once (demoMediaUrl is not free). */
  urls: string[];
}

/** Share of new visual creatives that are a recut of one of their advertiser's earlier ones (look-alike families). */
const RECUT_SHARE = 0.3;

function capitalise(s: string) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Yields `count` demo ad lines. */
export function* generateDemoAds(count: number, seed = DEFAULT_SEED): Generator<AdLine> {
  const random = prng(seed);
  // Pictures and families draw from their own sequence, so the ads themselves are what they were before pictures.
  const pictureRandom = prng(seed ^ 0x9e3779b9);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const word = () => pick(SYLLABLES) + pick(SYLLABLES);

  const country = zipf(COUNTRIES.length, 1.0, random);
  const category = zipf(CATEGORIES.length, 0.8, random);
  const advertiserCount = Math.max(40, Math.round(count / 40));
  const webmasterCount = Math.max(10, Math.round(count / 500));
  const advertiserOf = zipf(advertiserCount, 1.05, random);
  const webmasterOf = zipf(webmasterCount, 0.9, random);
  const advertisers: AdvertiserSeed[] = [];
  const webmasters: { id: string; name: string; home: number }[] = [];

  for (let w = 0; w < webmasterCount; w++) {
    webmasters.push({ id: `wm_${(w + 1).toString().padStart(5, '0')}`, name: `${capitalise(word())} Affiliates`, home: country() });
  }
  const advertiser = (index: number): AdvertiserSeed => {
    let a = advertisers[index];
    if (a) return a;
    const name = `${capitalise(word())} ${capitalise(word())} ${pick(COMPANY_SUFFIXES)}`;
    const slug = name.toLowerCase().split(' ').slice(0, 2).join('');
    const roll = random();
    const platforms: Platform[] = roll < 0.55 ? ['facebook', 'tiktok'] : roll < 0.8 ? ['facebook'] : ['tiktok'];
    const primary = category();
    const categories = [CATEGORIES[primary] ?? 'ecommerce_and_retail'];
    if (random() < 0.35) categories.push(CATEGORIES[category()] ?? 'ecommerce_and_retail');
    const domains = [`${slug}.${pick(TLDS)}`];
    if (random() < 0.3) domains.push(`${slug}-${word()}.${pick(TLDS)}`);
    const isApp = random() < 0.12;
    a = {
      id: `adv_${(index + 1).toString().padStart(6, '0')}`,
      name,
      platforms,
      accounts: {
        facebook: String(100_000_000_000_000 + Math.floor(random() * 899_999_999_999_999)),
        tiktok: String(7_000_000_000_000_000 + Math.floor(random() * 999_999_999_999_999)),
      },
      domains,
      categories,
      home: country(),
      creatives: [],
      familyRoots: { still: [], video: [] },
      app: isApp
        ? {
            id: `app_${(index + 1).toString().padStart(6, '0')}`,
            name: `${capitalise(word())} ${pick(['Play', 'Go', 'Pro', 'Plus', 'Live'])}`,
            store: random() < 0.5 ? 'app_store' : 'google_play',
            bundle_id: `com.${slug}.${word()}`,
          }
        : null,
    };
    advertisers[index] = a;
    return a;
  };

  for (let i = 0; i < count; i++) {
    const adv = advertiser(advertiserOf());
    const platform = pick(adv.platforms);
    const categories = random() < 0.7 ? [adv.categories[0] ?? 'ecommerce_and_retail'] : [...new Set(adv.categories)];
    const webmaster = random() < 0.6 ? (webmasters[webmasterOf()] ?? null) : null;

    const countries = new Set<string>();
    const home = webmaster && random() < 0.8 ? webmaster.home : random() < 0.6 ? adv.home : country();
    countries.add(COUNTRIES[home]?.[0] ?? 'US');
    const extra = random() < 0.5 ? 0 : Math.floor(random() * 4);
    for (let c = 0; c < extra; c++) countries.add(COUNTRIES[country()]?.[0] ?? 'US');
    const languages = new Set<string>();
    for (const code of countries) languages.add(COUNTRIES.find(([c]) => c === code)?.[1] ?? 'en');

    let creative = adv.creatives.length && random() < 0.65 ? pick(adv.creatives) : null;
    const topic = CATEGORY_WORDS[categories[0] ?? ''] ?? GENERIC_WORDS;
    if (!creative) {
      const title = `${capitalise(pick(GENERIC_WORDS))} ${pick(topic)} ${pick(GENERIC_WORDS)} ${pick(topic)}`;
      creative = newCreative(adv, `cr_${(i + 1).toString().padStart(8, '0')}`, pick(FORMATS), title, categories[0] ?? 'ecommerce_and_retail', pictureRandom);
      adv.creatives.push(creative);
    }

    // More ads start recently (the platform grows); lifetimes are mostly short with a long tail.
    const age = Math.floor(Math.pow(random(), 1.4) * DEMO_DAYS);
    const firstSeen = daysBeforeEnd(age);
    const lifetime = Math.floor(-Math.log(1 - random()) * 18);
    const days = Math.min(lifetime, age);
    const lastSeen = daysBeforeEnd(age - days);
    const activityDays = Math.max(1, Math.round((days + 1) * (0.5 + random() * 0.5)));
    const host = [pick(SUBDOMAINS), pick(adv.domains)].filter(Boolean).join('.');
    const app = adv.app && random() < 0.7 ? adv.app : null;
    // Drawn to keep the sequence of the ads as it was; a creative's pictures are its own (cards).
    if (creative.format === 'carousel') random();
    const impressions = Math.floor(Math.exp(6 + random() * 8) * (1 + days / 10));

    yield {
      id: `ad_${(i + 1).toString().padStart(9, '0')}`,
      title: creative.title,
      body: `${capitalise(pick(topic))} ${pick(GENERIC_WORDS)} from ${adv.name}: ${pick(GENERIC_WORDS)} ${pick(topic)} ${pick(topic)} in ${[...countries][0]}.`,
      landing_url: demoLandingUrl(i, {
        host,
        path: `${pick(topic)}-${pick(GENERIC_WORDS)}`,
        platform,
        app,
        slug: adv.domains[0]?.split('.')[0] ?? 'brand',
        shop: categories.includes('ecommerce_and_retail'),
      }),
      platform_name: platform,
      advertiser: { id: adv.id, name: adv.name, account_id: adv.accounts[platform] },
      webmaster: webmaster ? { id: webmaster.id, name: webmaster.name } : null,
      status_today: lastSeen === DEMO_END_DATE ? 'active' : 'inactive',
      first_seen_date: firstSeen,
      last_seen_date: lastSeen,
      activity_days_amount: activityDays,
      countries: [...countries],
      languages: [...languages],
      categories,
      creative: { id: creative.id, format: creative.format, title: creative.title },
      media: creative.urls.map((url) => ({
        type: creative.format === 'video' ? ('video' as const) : ('image' as const),
        url,
        width: 1080,
        height: creative.format === 'video' ? 1920 : 1080,
        duration_seconds: creative.format === 'video' ? 15 + (Number(creative.id.slice(3)) % 30) : null,
      })),
      app,
      impressions,
      popularity: Math.round(Math.log10(impressions + 1) * 100 * (0.5 + random())) / 100,
    };
  }
}

/**
 * The landing URL of demo ad `i`: most go to the advertiser's own site, the others to every other destination type
 * (destinations.ts). The choice hashes the ad's index instead of drawing from the generator, so every other field
 * stays what the same seed always gave.
 */
function demoLandingUrl(
  i: number,
  ad: { host: string; path: string; platform: Platform; app: { store: string; bundle_id: string } | null; slug: string; shop: boolean },
): string {
  const roll = Math.imul(i + 1, 2_654_435_761) >>> 24; // 0..255
  const utm = `utm_source=${ad.platform}`;
  if (ad.app && roll < 160) {
    return ad.app.store === 'app_store'
      ? `https://apps.apple.com/app/${ad.app.bundle_id}?${utm}`
      : `https://play.google.com/store/apps/details?id=${ad.app.bundle_id}&${utm}`;
  }
  if (roll < 14) return `https://t.me/${ad.slug}`;
  if (roll < 22) return `https://wa.me/${100_000_000 + i}`;
  if (roll < 36) return `https://www.instagram.com/${ad.slug}/`;
  if (roll < 44) return `https://www.facebook.com/${ad.slug}`;
  if (roll < 60) return `https://www.amazon.com/stores/${ad.slug}?${utm}`;
  if (roll < 68) return `https://www.etsy.com/shop/${ad.slug}?${utm}`;
  if (ad.shop && roll < 140) return `https://${ad.host}/products/${ad.path}?${utm}`;
  return `https://${ad.host}/${ad.path}?${utm}`;
}

const isVideo = (format: CreativeFormat) => format === 'video';

/**
 * A new demo creative: with RECUT_SHARE a recut (crop, colour or wording) of an earlier visual creative of the same
 * advertiser and shape, keeping that family's design; otherwise the first of a family of its own.
 */
function newCreative(adv: AdvertiserSeed, id: string, format: CreativeFormat, title: string, category: string, random: () => number): DemoCreativeSeed {
  const cards = format === 'carousel' ? 2 + Math.floor(random() * 4) : format === 'text' ? 0 : 1;
  const shape = isVideo(format) ? ('portrait' as const) : ('square' as const);
  // The advertiser's earlier visual creatives of the same shape that start a family, in the order they were made.
  const roots = adv.familyRoots[isVideo(format) ? 'video' : 'still'];
  const relatives = cards > 0 ? roots : [];
  const family = relatives.length && random() < RECUT_SHARE ? relatives[Math.floor(random() * relatives.length)] : undefined;
  const withUrls = (picture: Omit<DemoCreativeSpec, 'card'>): DemoCreativeSeed => ({
    id,
    format,
    title,
    picture,
    cards,
    urls: Array.from({ length: cards }, (_, card) => demoMediaUrl({ ...picture, card })),
  });
  if (family) {
    const recut = RECUT_KINDS[Math.floor(random() * RECUT_KINDS.length)] ?? 'crop';
    return withUrls({ ...family.picture, recut, headline: recut === 'wording' ? title : family.picture.headline });
  }
  const creative = withUrls({ root: id, recut: null, brand: adv.name, headline: title, cta: demoCallToAction(category, id), category, shape });
  if (cards > 0) roots.push(creative);
  return creative;
}

/**
 * The demo pictures worth rendering under a budget of `budget` pictures: whole families (a design and its recuts),
 * those whose creatives run the most ads first (ties by the family's id), until the budget is spent. Rendering is
 * about 24 ms of CPU a picture, so a first `npm start` (100,000 ads, 44,552 pictures) would otherwise spend many
 * minutes on them.
 */
export function demoPicturesWithin(count: number, budget: number, seed = DEFAULT_SEED): Set<string> {
  const families = new DemoPictureFamilies();
  for (const line of generateDemoAds(count, seed)) families.add(line);
  return families.within(budget);
}

/** The picture families of demo lines as they are generated (the seed counts them while it writes its file). */
export class DemoPictureFamilies {
  private readonly families = new Map<string, { ads: number; urls: Set<string> }>();

  add(line: AdLine): void {
    for (const media of line.media) {
      const root = familyOf(media.url);
      if (!root) continue;
      const family = this.families.get(root) ?? { ads: 0, urls: new Set<string>() };
      family.urls.add(media.url);
      this.families.set(root, family);
    }
    const root = familyOf(line.media[0]?.url ?? '');
    const family = root ? this.families.get(root) : undefined;
    if (family) family.ads++;
  }

  /** See demoPicturesWithin. */
  within(budget: number): Set<string> {
    const chosen = new Set<string>();
    const ranked = [...this.families].sort((a, b) => b[1].ads - a[1].ads || (a[0] < b[0] ? -1 : 1));
    for (const [, family] of ranked) {
      if (chosen.size + family.urls.size > budget) continue;
      for (const url of family.urls) chosen.add(url);
    }
    return chosen;
  }
}

const familyOf = (url: string): string | undefined => /^demo:([^/]+)\//.exec(url)?.[1];

/** Writes the demo lines as NDJSON; `onLine` sees each line as it is written. */
export async function writeDemoNdjson(file: string, count: number, seed = DEFAULT_SEED, onLine?: (line: AdLine) => void): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const out = createWriteStream(file, { encoding: 'utf8' });
  let chunk = '';
  for (const line of generateDemoAds(count, seed)) {
    onLine?.(line);
    chunk += `${JSON.stringify(line)}\n`;
    if (chunk.length > 1_000_000) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}
