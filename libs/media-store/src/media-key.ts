/**
 * What names a file in the media store, shared by the apps that write it (query-api and its picture workers) and the
 * one that serves it (mcp-gateway): content keys, their types, and the layout of the files under a root or prefix.
 */

/** The only types the service stores and serves (never SVG: it can carry script), with their file extensions. */
export const MEDIA_FILE_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
} as const;
export type MediaFileMime = keyof typeof MEDIA_FILE_TYPES;

/** A stored file's key: the SHA-256 of its bytes (hex) and the extension of its type, e.g. `3fa9…c2.webp`. */
export const MEDIA_KEY = /^[0-9a-f]{64}\.(png|jpg|webp|gif|mp4)$/;

/** The type a key names, or null when it is not a content key (so no other name ever reaches a disk or a bucket). */
export function mimeOfKey(key: string): MediaFileMime | null {
  const match = MEDIA_KEY.exec(key);
  if (!match) return null;
  const ext = match[1];
  return (Object.keys(MEDIA_FILE_TYPES) as MediaFileMime[]).find((mime) => MEDIA_FILE_TYPES[mime] === ext) ?? null;
}

/** Inclusive byte positions, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Clamps a range to a file of `size` bytes; null when it starts past the end (HTTP 416). */
export function clampRange(range: ByteRange, size: number): ByteRange | null {
  if (range.start >= size || range.start < 0 || range.end < range.start) return null;
  return { start: range.start, end: Math.min(range.end, size - 1) };
}

/** Where a key lives under a root or prefix: `<first two hex digits>/<key>` (256 folders, never one huge one). */
export const mediaFilePath = (key: string) => `${key.slice(0, 2)}/${key}`;
