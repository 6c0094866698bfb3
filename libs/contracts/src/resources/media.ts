import { z } from 'zod';
import { Id } from './common';

/** The only types media are served as (product-decisions.md, "Media"): never SVG. */
export const MEDIA_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'video/mp4'] as const;

/** Most bytes one answer carries: a larger file travels in ranges (the transport carries JSON, so base64). */
export const MEDIA_CHUNK_BYTES = 4 * 1024 * 1024;

/** A creative's media file n, or its thumbnail, or a byte range of it (inclusive, as in HTTP). */
export const mediaFileArgs = () =>
  z.strictObject({
    creative_id: Id,
    index: z.int().min(0).max(49),
    variant: z.enum(['file', 'thumbnail']),
    range: z.strictObject({ start: z.int().min(0), end: z.int().min(0) }).optional(),
  });
export type MediaFileArgs = z.infer<ReturnType<typeof mediaFileArgs>>;

export const MediaFile = z.object({
  mime: z.enum(MEDIA_MIME_TYPES),
  /** Size of the whole file. */
  size: z.int().min(0),
  /** The file's content key: a strong validator for ETag. */
  etag: z.string(),
  /** The bytes carried, when they are not the whole file (at most MEDIA_CHUNK_BYTES). */
  range: z.object({ start: z.int().min(0), end: z.int().min(0) }).nullable(),
  body_base64: z.string(),
});
export type MediaFile = z.infer<typeof MediaFile>;
