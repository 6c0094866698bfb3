import { parse } from 'tldts';
import type { DestinationType } from '@adintel/contracts';

/**
 * Where an ad sends people, from its landing URL: the one rules table (docs/agents.md shows it). The first rule that
 * matches wins; a URL no rule matches is a `website`.
 * - `domains`: the host is one of these or a subdomain of one (play.google.com, not google.com);
 * - `brands`: the registrable domain's name under any public suffix (amazon.com, amazon.co.uk, amazon.de);
 * - `hostPrefixes` / `paths`: a shop on the advertiser's own domain (shop.example.com, example.com/products/...).
 */
export interface DestinationRule {
  type: DestinationType;
  domains?: readonly string[];
  brands?: readonly string[];
  hostPrefixes?: readonly string[];
  paths?: RegExp;
}

export const DESTINATION_RULES: readonly DestinationRule[] = [
  {
    type: 'app_store',
    domains: ['apps.apple.com', 'itunes.apple.com', 'play.google.com', 'appgallery.huawei.com', 'galaxystore.samsung.com', 'apps.microsoft.com'],
  },
  {
    type: 'messenger',
    domains: ['t.me', 'telegram.me', 'telegram.org', 'wa.me', 'whatsapp.com', 'm.me', 'messenger.com', 'line.me', 'viber.com', 'signal.me'],
  },
  {
    type: 'social_profile',
    domains: [
      'facebook.com', 'fb.com', 'instagram.com', 'tiktok.com', 'x.com', 'twitter.com', 'youtube.com', 'linkedin.com',
      'pinterest.com', 'snapchat.com', 'threads.net', 'vk.com', 'reddit.com',
    ],
  },
  {
    type: 'marketplace',
    brands: [
      'amazon', 'ebay', 'aliexpress', 'etsy', 'walmart', 'temu', 'shein', 'mercadolivre', 'mercadolibre', 'rakuten',
      'allegro', 'ozon', 'wildberries', 'flipkart', 'shopee', 'lazada', 'jumia', 'zalando', 'otto', 'bol', 'kaufland',
      'trendyol', 'tokopedia', 'coupang',
    ],
  },
  {
    type: 'online_shop',
    domains: ['myshopify.com'],
    hostPrefixes: ['shop.', 'store.'],
    paths: /^\/(products?|shop|store|cart|checkout|collections)(\/|$)/,
  },
];

/** The destination type of a landing URL (an absolute http(s) URL; anything unparsable is a `website`). */
export function destinationOf(landingUrl: string): DestinationType {
  const url = URL.parse(landingUrl);
  if (!url) return 'website';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return destinationOfParts(host, parse(host).domainWithoutSuffix, url.pathname);
}

/**
 * destinationOf from a URL already taken apart: its host (lower case, no trailing dot), the registrable domain's name
 * (tldts' domainWithoutSuffix) and its path. The ingest parses each landing URL once and asks this.
 */
export function destinationOfParts(host: string, brand: string | null, pathname: string): DestinationType {
  const path = pathname.toLowerCase();
  const rule = DESTINATION_RULES.find(
    (r) =>
      r.domains?.some((d) => host === d || host.endsWith(`.${d}`)) ||
      (brand !== null && r.brands?.includes(brand)) ||
      r.hostPrefixes?.some((p) => host.startsWith(p)) ||
      r.paths?.test(path),
  );
  return rule?.type ?? 'website';
}
