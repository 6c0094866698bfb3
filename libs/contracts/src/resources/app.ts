import { z } from 'zod';
import { APP_STORES } from '../vocabulary';
import { CountryVolume, CursorPagination, Id } from './common';

export const AppRow = z.object({
  id: Id,
  name: z.string(),
  store: z.enum(APP_STORES),
  bundle_id: z.string(),
  ads_total: z.int().min(0),
  advertisers: z.int().min(0),
});
export type AppRow = z.infer<typeof AppRow>;

export const AppList = z.object({ data: z.array(AppRow), pagination: CursorPagination });
export type AppList = z.infer<typeof AppList>;

/** A promoted mobile app. */
export const App = AppRow.extend({
  advertiser_list: z.array(z.object({ id: Id, name: z.string(), ads: z.int().min(0) })),
  countries: z.array(CountryVolume),
});
export type App = z.infer<typeof App>;
