import { z } from 'zod';
import { PLATFORMS } from '../vocabulary';
import { CountryVolume, CursorPagination, Id, IsoDate } from './common';

export const AdvertiserMatch = z.object({
  id: Id,
  name: z.string(),
  platforms: z.array(z.enum(PLATFORMS)),
  ads_total: z.int().min(0),
  active_ads: z.int().min(0),
});
export type AdvertiserMatch = z.infer<typeof AdvertiserMatch>;

export const AdvertiserMatches = z.object({ data: z.array(AdvertiserMatch) });
export type AdvertiserMatches = z.infer<typeof AdvertiserMatches>;

/** The merged advertiser record across both platforms. */
export const Advertiser = AdvertiserMatch.extend({
  platform_accounts: z.array(z.object({ platform: z.enum(PLATFORMS), account_id: z.string() })),
  creatives: z.int().min(0),
  webmasters: z.int().min(0),
  countries: z.array(CountryVolume),
  categories: z.array(z.string()),
  landing_domains: z.array(z.string()),
  first_seen_date: IsoDate,
  last_seen_date: IsoDate,
});
export type Advertiser = z.infer<typeof Advertiser>;

export const ActivityDay = z.object({
  date: IsoDate,
  new_ads: z.int().min(0),
  active_ads: z.int().min(0),
});
export type ActivityDay = z.infer<typeof ActivityDay>;

export const AdvertiserActivity = z.object({
  advertiser_id: Id,
  date_from: IsoDate,
  date_to: IsoDate,
  data: z.array(ActivityDay),
});
export type AdvertiserActivity = z.infer<typeof AdvertiserActivity>;

export const AdvertiserList = z.object({
  data: z.array(AdvertiserMatch),
  pagination: CursorPagination,
});
export type AdvertiserList = z.infer<typeof AdvertiserList>;
