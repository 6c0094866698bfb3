import type { Media } from '@adintel/contracts';
import { mediaPath } from '@adintel/tool-catalogue';
import type { ShownMedia } from './picture-catalogue';

/**
 * The public form of media entries: a stored file gets the service's durable URLs (under `baseUrl`, the public
 * origin) and its real size and dimensions; an entry without a stored file keeps the URL it was ingested with.
 * Entries link to their creative's files: a creative's media are those of its first ad. `file` says which: a pending
 * entry (resolved against the picture catalogue first) is one a picture worker is still making.
 */
export function publicMedia(baseUrl: string, creativeId: string, media: readonly ShownMedia[]): Media[] {
  return media.map((entry, index) =>
    entry.stored
      ? {
          type: entry.stored.type,
          url: `${baseUrl}${mediaPath(creativeId, index, 'file')}`,
          width: entry.stored.width,
          height: entry.stored.height,
          duration_seconds: entry.stored.duration_seconds,
          bytes: entry.stored.bytes,
          thumbnail_url: `${baseUrl}${mediaPath(creativeId, index, 'thumbnail')}`,
          file: 'held',
        }
      : {
          type: entry.type,
          url: entry.url,
          width: entry.width,
          height: entry.height,
          duration_seconds: entry.duration_seconds,
          bytes: null,
          thumbnail_url: null,
          file: entry.failed !== undefined ? 'failed' : entry.pending ? 'pending' : 'not_held',
        },
  );
}
