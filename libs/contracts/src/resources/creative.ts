import { z } from 'zod';
import { CREATIVE_FORMATS, PLATFORMS } from '../vocabulary';
import { CursorPagination, Id, IsoDate, similarityFields } from './common';
import { Media } from './ad';

/** A unique (deduplicated) piece of ad media and how widely it runs. */
export const CreativeRow = z.object({
  id: Id,
  title: z.string(),
  creative_format: z.enum(CREATIVE_FORMATS),
  ads_count: z.int().min(0),
  advertisers_count: z.int().min(0),
  platforms: z.array(z.enum(PLATFORMS)),
  first_seen_date: IsoDate,
  last_seen_date: IsoDate,
  ...similarityFields,
});
export type CreativeRow = z.infer<typeof CreativeRow>;

export const CreativeList = z.object({ data: z.array(CreativeRow), pagination: CursorPagination });
export type CreativeList = z.infer<typeof CreativeList>;

export const Creative = CreativeRow.extend({
  media: z.array(Media),
  countries: z.array(z.string()),
  advertiser_ids: z.array(Id),
  sample_ad_ids: z.array(Id),
});
export type Creative = z.infer<typeof Creative>;
