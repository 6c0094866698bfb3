import type { AdFilters } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import type { AdFilter } from '../store/ad-store.port';
import { words } from '../store/text';

/** `total` is exact up to this many matches; above it the store may estimate. */
export const EXACT_TOTAL_UP_TO = 10_000;

/** Validated /ads arguments -> the normalised filter the store takes (sets sorted, so it signs stably). */
export function toAdFilter(args: AdFilters): AdFilter {
  const filter: AdFilter = {};
  if (args.q !== undefined) {
    const w = words(args.q);
    if (!w.length) throw ServiceError.invalidArgument([{ field: 'q', message: 'must contain at least one letter or digit' }]);
    filter.words = [...new Set(w)].sort();
  }
  if (args.country) filter.country = args.country.toUpperCase();
  if (args.platforms) filter.platforms = [...new Set(args.platforms)].sort();
  if (args.creative_categories) filter.categories = [...new Set(args.creative_categories)].sort();
  if (args.status_today) filter.status = args.status_today;
  if (args.destination_type) filter.destinationType = args.destination_type;
  if (args.advertiser_id) filter.advertiserId = args.advertiser_id;
  if (args.webmaster_id) filter.webmasterId = args.webmaster_id;
  if (args.landing_domain) filter.landingDomain = args.landing_domain.toLowerCase().replace(/\.$/, '');
  if (args.app_id) filter.appId = args.app_id;
  if (args.creative_id) filter.creativeId = args.creative_id;
  if (args.date_from) filter.dateFrom = args.date_from;
  if (args.date_to) filter.dateTo = args.date_to;
  return filter;
}
