import { createHash } from 'node:crypto';
import { MEDIA_TYPES, type MediaMime } from './media-store.port';

/** The content key of a file: SHA-256 of its bytes, and the extension of its type (so a key names its type). */
export function mediaKeyOf(bytes: Buffer, mime: MediaMime): string {
  return `${createHash('sha256').update(bytes).digest('hex')}.${MEDIA_TYPES[mime]}`;
}
