import { mediaFileArgs, type FieldError } from '@adintel/contracts';
import { MEDIA_FILE, MEDIA_THUMBNAIL_PATH, mediaPath, REST_PREFIX } from '@adintel/tool-catalogue';
import type { MediaTarget } from './media.service';

/**
 * The media routes under REST_PREFIX: a creative's file n (where the catalogue prices it) and its thumbnail, the
 * URLs get_ad/get_creative carry. The controller, the OpenAPI document and the MCP resource templates use these.
 */
export const MEDIA_FILE_PATH = MEDIA_FILE.httpPath;
export { MEDIA_THUMBNAIL_PATH };

/** A `{name}` template as an Express route (`/creo/:id/media/:n`). */
export const expressRoute = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

const shape = mediaFileArgs().shape;

export type TargetParse = { ok: true; target: MediaTarget } | { ok: false; notFound: boolean; errors: FieldError[] };

/**
 * The path parameters, checked like a tool's arguments: a malformed id or n is a 400 naming the field; an n that
 * is a number but past the most media an ad can carry names no file (404), like any index out of range.
 */
export function parseTarget(id: string, n: string, variant: MediaTarget['variant']): TargetParse {
  const errors: FieldError[] = [];
  if (!shape.creative_id.safeParse(id).success) errors.push({ field: 'id', message: 'must be a creative id of 1 to 128 characters' });
  if (!/^\d{1,9}$/.test(n)) errors.push({ field: 'n', message: 'must be the media index, an integer from 0' });
  if (errors.length) return { ok: false, notFound: false, errors };
  const index = Number(n);
  if (!shape.index.safeParse(index).success) return { ok: false, notFound: true, errors: [] };
  return { ok: true, target: { creativeId: id, index, variant } };
}

/** The public URL of a file or thumbnail: the `url` and `thumbnail_url` of a media entry, and the MCP resource URI. */
export function mediaUrl(baseUrl: string, target: MediaTarget): string {
  return `${baseUrl}${mediaPath(target.creativeId, target.index, target.variant)}`;
}

/** The target an `https` media URL of this service names, or undefined (another kind of URI). */
export function targetOfUrl(baseUrl: string, uri: string): TargetParse | undefined {
  const prefix = `${baseUrl}${REST_PREFIX}/creo/`;
  if (!uri.startsWith(prefix)) return undefined;
  const match = /^([^/?#]+)\/media\/([^/?#]+)(\/thumbnail)?$/.exec(uri.slice(prefix.length));
  if (!match) return undefined;
  const [, encodedId = '', index = '', thumbnail] = match;
  let id: string;
  try {
    id = decodeURIComponent(encodedId);
  } catch {
    return { ok: false, notFound: false, errors: [{ field: 'id', message: 'is not valid percent-encoding' }] };
  }
  return parseTarget(id, index, thumbnail ? 'thumbnail' : 'file');
}
