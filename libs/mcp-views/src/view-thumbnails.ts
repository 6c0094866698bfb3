/**
 * Pictures for the views. A tool result names them in its `_meta` (hosts hand the whole result to the view and put
 * the content, not `_meta`, in front of the model) by their thumbnail URIs only; the view reads the ones it shows
 * through the host (`resources/read`, free for a thumbnail), so a client that shows no view pays nothing for them
 * (docs/media.md, "Pictures in the views"). The gateway writes the list (apps/mcp-gateway/src/mcp/media-content.ts);
 * the views read it and the pictures. Pure data and checks: imported by both sides.
 */

/** The `_meta` key of a result's thumbnails. */
export const THUMBNAILS_META = 'thumbnails';

/** One thumbnail: the creative it shows (its first media entry) and the thumbnail's URI (the service's `…/media/0/thumbnail`). */
export interface ViewThumbnail {
  readonly creative_id: string;
  readonly uri: string;
}

/** A search_ads page names at most this many pictures (one per distinct creative, in row order). */
export const VIEW_THUMBNAIL_LIMITS = { count: 24 } as const;

/** The advertiser card shows at most this many of the advertiser's creatives... */
export const ADVERTISER_THUMBNAILS = 6;
/** ...the first that read, of at most this many candidates (a creative may have no stored picture). */
export const ADVERTISER_CANDIDATES = 12;

/** How many reads a view keeps in flight through the host at once. */
export const VIEW_READS_AT_ONCE = 4;

/** A thumbnail URI of this service: only such URIs are passed to the host (the view itself never fetches them). */
const THUMBNAIL_URI = /^https?:\/\/[^\s"'<>]+\/media\/\d+\/thumbnail$/;

/** Only these are shown: a data: URL of an allowed picture type (never SVG, which can carry script). */
const DATA_URL = /^data:image\/(?:webp|png|jpeg|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

/** The thumbnail URIs a result names, by creative id, in order; anything malformed is left out. */
export function thumbnailsOf(result: { _meta?: Record<string, unknown> } | undefined): ReadonlyMap<string, string> {
  const list = result?._meta?.[THUMBNAILS_META];
  const found = new Map<string, string>();
  if (!Array.isArray(list)) return found;
  for (const item of list as unknown[]) {
    const { creative_id, uri } = (item ?? {}) as Partial<ViewThumbnail>;
    if (typeof creative_id === 'string' && typeof uri === 'string' && THUMBNAIL_URI.test(uri)) found.set(creative_id, uri);
  }
  return found;
}

/**
 * The picture a `resources/read` of `uri` answered, as a data: URL the views may show, or undefined: the content
 * for that URI must be a base64 `blob` of an allowed picture type (the `mimeType` the server gives, checked here).
 */
export function pictureOf(read: { contents?: readonly unknown[] } | undefined, uri: string): string | undefined {
  const content = read?.contents?.find((item) => (item as { uri?: unknown } | null)?.uri === uri) as { mimeType?: unknown; blob?: unknown } | undefined;
  if (typeof content?.mimeType !== 'string' || typeof content.blob !== 'string') return undefined;
  const src = `data:${content.mimeType};base64,${content.blob}`;
  return DATA_URL.test(src) ? src : undefined;
}
