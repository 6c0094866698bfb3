import type { Webmaster, WebmasterRow } from '@adintel/contracts';

/** What two operators are compared on: where their ads run, in what categories, to which landing domains. */
export interface WebmasterProfile {
  row: WebmasterRow;
  countries: Map<string, number>;
  categories: Map<string, number>;
  domains: Set<string>;
}

/** Weights of the three traits in the similarity (sum 1). */
const WEIGHTS = { countries: 0.45, categories: 0.35, domains: 0.2 };
/** Operators below this similarity are not look-alikes. */
export const MIN_WEBMASTER_SIMILARITY = 0.5;
/** A trait counts as shared when it is at least this share of both operators' ads. */
const SHARED_SHARE = 0.1;

export function profileOf(webmaster: Webmaster): WebmasterProfile {
  const { categories, landing_domains, ...row } = webmaster;
  return {
    row,
    countries: new Map(webmaster.countries.map((c) => [c.country, c.share])),
    categories: new Map(categories.map((c) => [c.category, c.share])),
    domains: new Set(landing_domains),
  };
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [key, value] of a) {
    na += value * value;
    dot += value * (b.get(key) ?? 0);
  }
  for (const value of b.values()) nb += value * value;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const item of a) if (b.has(item)) shared++;
  const union = a.size + b.size - shared;
  return union ? shared / union : 0;
}

/**
 * How alike two operators work (0..1): cosine of their country shares and of their category shares, Jaccard of their
 * top landing domains, weighted; and why: the countries and categories that are a large share of both, and the
 * landing domains both send traffic to.
 */
export function compareProfiles(a: WebmasterProfile, b: WebmasterProfile): { similarity: number; match: string[] } {
  const similarity =
    WEIGHTS.countries * cosine(a.countries, b.countries) +
    WEIGHTS.categories * cosine(a.categories, b.categories) +
    WEIGHTS.domains * jaccard(a.domains, b.domains);
  const shared = (prefix: string, x: Map<string, number>, y: Map<string, number>) =>
    [...x]
      .filter(([key, share]) => share >= SHARED_SHARE && (y.get(key) ?? 0) >= SHARED_SHARE)
      .sort((p, q) => q[1] - p[1] || (p[0] < q[0] ? -1 : 1))
      .slice(0, 3)
      .map(([key]) => `${prefix}:${key}`);
  const domains = [...a.domains].filter((d) => b.domains.has(d)).sort().slice(0, 3).map((d) => `domain:${d}`);
  return {
    similarity: Math.round(similarity * 1000) / 1000,
    match: [...shared('country', a.countries, b.countries), ...shared('category', a.categories, b.categories), ...domains],
  };
}
