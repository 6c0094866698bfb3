import { z } from 'zod';
import { CountryVolume, CursorPagination } from './common';

export const DomainRow = z.object({
  domain: z.string(),
  ads_total: z.int().min(0),
  active_ads: z.int().min(0),
  advertisers: z.int().min(0),
});
export type DomainRow = z.infer<typeof DomainRow>;

export const DomainList = z.object({ data: z.array(DomainRow), pagination: CursorPagination });
export type DomainList = z.infer<typeof DomainList>;

/** One registrable landing domain with everything below it. */
export const Domain = DomainRow.extend({
  subdomains: z.array(z.object({ host: z.string(), ads: z.int().min(0) })),
  countries: z.array(CountryVolume),
  top_advertisers: z.array(z.object({ id: z.string(), name: z.string(), ads: z.int().min(0) })),
});
export type Domain = z.infer<typeof Domain>;
