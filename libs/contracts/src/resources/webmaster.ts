import { z } from 'zod';
import { CountryVolume, CursorPagination, Id, Share, similarityFields } from './common';

/** An affiliate: volume per geography, dominant geography and relevance. */
export const WebmasterRow = z.object({
  id: Id,
  name: z.string(),
  ads_total: z.int().min(0),
  active_ads: z.int().min(0),
  advertisers: z.int().min(0),
  countries: z.array(CountryVolume),
  dominant_country: z.string().nullable(),
  relevance: Share.describe('share of its ads in the dominant country; 1 = single-geo specialist'),
  ...similarityFields,
});
export type WebmasterRow = z.infer<typeof WebmasterRow>;

export const WebmasterList = z.object({ data: z.array(WebmasterRow), pagination: CursorPagination });
export type WebmasterList = z.infer<typeof WebmasterList>;

export const Webmaster = WebmasterRow.extend({
  categories: z.array(z.object({ category: z.string(), ads: z.int().min(0), share: Share })),
  landing_domains: z.array(z.string()),
});
export type Webmaster = z.infer<typeof Webmaster>;
