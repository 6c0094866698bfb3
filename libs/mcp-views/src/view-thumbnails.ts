/**
 * Pictures for the views, carried in a tool result's `_meta` rather than its content: hosts hand the whole result
 * to the view, and put the content (not `_meta`) in front of the model, so a gallery's pictures cost the model's
 * context nothing (docs/media.md, "Pictures in the views"). The gateway writes them
 * (apps/mcp-gateway/src/mcp/media-content.ts); the views read them. Pure data: imported by both sides.
 */

/** The `_meta` key of a result's thumbnails. */
export const THUMBNAILS_META = 'thumbnails';

/** One thumbnail: the creative it shows (its first media entry) and the picture as a `data:` URL (the views' CSP allows only those). */
export interface ViewThumbnail {
  readonly creative_id: string;
  readonly src: string;
}

/** Bounds per result: a search_ads page shows at most this many pictures (one per distinct creative), within these bytes. */
export const VIEW_THUMBNAIL_LIMITS = { count: 24, bytes: 512 * 1024 } as const;

/** The advertiser card shows at most this many of the advertiser's creatives. */
export const ADVERTISER_THUMBNAILS = 6;

/** Only these are shown: a data: URL of an allowed picture type (never SVG, which can carry script). */
const DATA_URL = /^data:image\/(?:webp|png|jpeg|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

/** The thumbnails a result carries, by creative id; anything malformed is left out. */
export function thumbnailsOf(result: { _meta?: Record<string, unknown> } | undefined): ReadonlyMap<string, string> {
  const list = result?._meta?.[THUMBNAILS_META];
  const found = new Map<string, string>();
  if (!Array.isArray(list)) return found;
  for (const item of list as unknown[]) {
    const { creative_id, src } = (item ?? {}) as Partial<ViewThumbnail>;
    if (typeof creative_id === 'string' && typeof src === 'string' && DATA_URL.test(src)) found.set(creative_id, src);
  }
  return found;
}
