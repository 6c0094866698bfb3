import type { estypes } from '@elastic/elasticsearch';
import type { AdFilter, DateRange, TrendFilter } from '../../ad-store.port';

type Query = estypes.QueryDslQueryContainer;

/** Ads active at any time in [from, to]: first_seen_date <= to AND last_seen_date >= from. */
export function activeIn(range: { from?: string; to?: string }): Query {
  return {
    range: {
      active_period: {
        ...(range.from ? { gte: range.from } : {}),
        ...(range.to ? { lte: range.to } : {}),
        relation: 'intersects',
      },
    },
  };
}

/**
 * The /ads filters as one `bool.filter` (no scoring: every ordering is an explicit sort).
 * Every word of q must be a whole word of title, body or landing URL: one `term` per word on
 * `search_text`, which holds the words of all three.
 */
export function adFilterQuery(filter: AdFilter): Query {
  const clauses: Query[] = [];
  for (const word of filter.words ?? []) clauses.push({ term: { search_text: word } });
  if (filter.country) clauses.push({ term: { countries: filter.country } });
  if (filter.platforms?.length) clauses.push({ terms: { platform_name: filter.platforms } });
  if (filter.categories?.length) clauses.push({ terms: { categories: filter.categories } });
  if (filter.status) clauses.push({ term: { status_today: filter.status } });
  if (filter.destinationType) clauses.push({ term: { destination_type: filter.destinationType } });
  if (filter.advertiserId) clauses.push({ term: { advertiser_id: filter.advertiserId } });
  if (filter.webmasterId) clauses.push({ term: { webmaster_id: filter.webmasterId } });
  if (filter.landingDomain) clauses.push({ term: { landing_domain_suffixes: filter.landingDomain } });
  if (filter.appId) clauses.push({ term: { app_id: filter.appId } });
  if (filter.creativeId) clauses.push({ term: { creative_id: filter.creativeId } });
  if (filter.dateFrom || filter.dateTo) clauses.push(activeIn({ from: filter.dateFrom, to: filter.dateTo }));
  return clauses.length ? { bool: { filter: clauses } } : { match_all: {} };
}

/** The trend filters plus "active in the window". */
export function trendFilterQuery(filter: TrendFilter, window: DateRange): Query {
  const clauses: Query[] = [activeIn(window)];
  if (filter.country) clauses.push({ term: { countries: filter.country } });
  if (filter.platform) clauses.push({ term: { platform_name: filter.platform } });
  if (filter.category) clauses.push({ term: { categories: filter.category } });
  return { bool: { filter: clauses } };
}
