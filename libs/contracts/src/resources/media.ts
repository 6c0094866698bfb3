import { z } from 'zod';
import { Id } from './common';

/** The only types media are served as (product-decisions.md, "Media"): never SVG. */
export const MEDIA_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'video/mp4'] as const;

/** A creative's media file n, or its thumbnail. */
export const mediaFileArgs = () =>
  z.strictObject({
    creative_id: Id,
    index: z.int().min(0).max(49),
    variant: z.enum(['file', 'thumbnail']),
  });
export type MediaFileArgs = z.infer<ReturnType<typeof mediaFileArgs>>;

/**
 * Where a creative's file is in the media store: its content key (the SHA-256 of its bytes and the extension of its
 * type). The bytes never travel over the transport: the gateway reads them from the media store itself.
 */
export const MediaLocation = z.object({
  key: z.string().regex(/^[0-9a-f]{64}\.(png|jpg|webp|gif|mp4)$/),
});
export type MediaLocation = z.infer<typeof MediaLocation>;
