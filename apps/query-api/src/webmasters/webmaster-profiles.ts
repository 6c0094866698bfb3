import type { Webmaster, WebmasterRow } from '@adintel/contracts';

/** What two operators are compared on: where their ads run, in what categories, to which landing domains. */
export interface WebmasterProfile {
  row: WebmasterRow;
  countries: Map<string, number>;
  categories: Map<string, number>;
  domains: Set<string>;
  /** Euclidean norms of the two share vectors, computed once per profile rather than once per comparison. */
  norms: { countries: number; categories: number };
}

/** Weights of the three traits in the similarity (sum 1). */
const WEIGHTS = { countries: 0.45, categories: 0.35, domains: 0.2 };
/** Operators below this similarity are not look-alikes. */
export const MIN_WEBMASTER_SIMILARITY = 0.5;
/** A trait counts as shared when it is at least this share of both operators' ads. */
const SHARED_SHARE = 0.1;

export function profileOf(webmaster: Webmaster): WebmasterProfile {
  const { categories, landing_domains, ...row } = webmaster;
  const countryShares = new Map(webmaster.countries.map((c) => [c.country, c.share]));
  const categoryShares = new Map(categories.map((c) => [c.category, c.share]));
  return {
    row,
    countries: countryShares,
    categories: categoryShares,
    domains: new Set(landing_domains),
    norms: { countries: norm(countryShares), categories: norm(categoryShares) },
  };
}

function norm(shares: Map<string, number>): number {
  let sum = 0;
  for (const value of shares.values()) sum += value * value;
  return Math.sqrt(sum);
}

/** Cosine of two share vectors, walking the smaller one. */
function cosine(a: Map<string, number>, b: Map<string, number>, na: number, nb: number): number {
  if (!na || !nb) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [key, value] of small) dot += value * (large.get(key) ?? 0);
  return dot / (na * nb);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const item of a) if (b.has(item)) shared++;
  const union = a.size + b.size - shared;
  return union ? shared / union : 0;
}

/**
 * How alike two operators work (0..1): cosine of their country shares and of their category shares, Jaccard of their
 * top landing domains, weighted.
 */
export function profileSimilarity(a: WebmasterProfile, b: WebmasterProfile): number {
  const similarity =
    WEIGHTS.countries * cosine(a.countries, b.countries, a.norms.countries, b.norms.countries) +
    WEIGHTS.categories * cosine(a.categories, b.categories, a.norms.categories, b.norms.categories) +
    WEIGHTS.domains * jaccard(a.domains, b.domains);
  return Math.round(similarity * 1000) / 1000;
}

/**
 * Why two operators match: the countries and categories that are a large share of both, and the landing domains both
 * send traffic to. Asked only for the operators similar enough to list (most of a scan is not).
 */
export function sharedTraits(a: WebmasterProfile, b: WebmasterProfile): string[] {
  const shared = (prefix: string, x: Map<string, number>, y: Map<string, number>) =>
    [...x]
      .filter(([key, share]) => share >= SHARED_SHARE && (y.get(key) ?? 0) >= SHARED_SHARE)
      .sort((p, q) => q[1] - p[1] || (p[0] < q[0] ? -1 : 1))
      .slice(0, 3)
      .map(([key]) => `${prefix}:${key}`);
  const domains = [...a.domains].filter((d) => b.domains.has(d)).sort().slice(0, 3).map((d) => `domain:${d}`);
  return [...shared('country', a.countries, b.countries), ...shared('category', a.categories, b.categories), ...domains];
}
