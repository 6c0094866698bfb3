import { z } from 'zod';

/** ISO 8601 calendar date, UTC (`YYYY-MM-DD`). */
export const IsoDate = z.iso.date();

/** Identifiers are opaque strings; 18-digit platform ids would lose precision as numbers. */
export const Id = z.string().min(1).max(128);

export const CountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166-1 country code, e.g. US')
  .toUpperCase();

export const Slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a lowercase slug, e.g. finance_and_banking');

export const Share = z.number().min(0).max(1);

export const Cursor = z.string().min(1).max(4096);

/** Paging block of every list that pages. */
export const CursorPagination = z.object({
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
});
export type CursorPagination = z.infer<typeof CursorPagination>;

export const CountryVolume = z.object({
  country: z.string(),
  ads: z.int().min(0),
  share: Share,
});
export type CountryVolume = z.infer<typeof CountryVolume>;

export const DateWindow = z.object({
  date_from: IsoDate,
  date_to: IsoDate,
});
export type DateWindow = z.infer<typeof DateWindow>;

/**
 * What a row found with `similar_to` adds (product-decisions.md, "Look-alikes"): how similar it is, and why it matches
 * (`same_creative`, `near_duplicate`, or the traits it shares, e.g. `country:US`). Absent without `similar_to`.
 */
export const similarityFields = {
  similarity: z.number().min(0).max(1).optional().describe('with similar_to: 0..1, rows are ordered by it'),
  match: z
    .array(z.string())
    .optional()
    .describe('with similar_to: why the row matches: same_creative, near_duplicate, or shared traits (country:US, category:…, domain:…)'),
};
