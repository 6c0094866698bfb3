/**
 * The media store port of query-api: content-addressed files (creative images, video files, poster frames and
 * thumbnails), engine-agnostic. Two engines implement it: the filesystem under DATA_DIR (`./filesystem-media-store.ts`,
 * the default) and S3-compatible object storage (`./s3-media-store.ts`). Both are pinned by one suite,
 * `test/media/media-store.contract.ts`. What a file is (its size, dimensions, perceptual hash) is decided before it is
 * stored (`./media-probe.ts`); engines only keep bytes.
 */

/** The only types the service stores and serves: the store port's (a record's media carries one). */
import { MEDIA_TYPES, type MediaMime } from '../store/record-media';

export { MEDIA_TYPES, type MediaMime };

/** A stored file's key: the SHA-256 of its bytes (hex) and the extension of its type, e.g. `3fa9…c2.webp`. */
export const MEDIA_KEY = /^[0-9a-f]{64}\.(png|jpg|webp|gif|mp4)$/;

export interface StoredFile {
  key: string;
  mime: MediaMime;
  bytes: number;
}

/** Inclusive byte positions, as in an HTTP Range header; `end` past the file is clamped to its last byte. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface MediaRead extends StoredFile {
  /** The bytes asked for: the whole file, or the range. */
  body: Buffer;
  /** The range actually read (null: the whole file). */
  range: ByteRange | null;
}

export interface MediaStore {
  readonly engine: 'filesystem' | 's3';
  /** Stores the bytes under their content key; storing the same bytes again changes nothing. */
  put(bytes: Buffer, mime: MediaMime): Promise<StoredFile>;
  /**
   * Moves a file written elsewhere (a Spool under the data directory) in under its content key (`sha256` is its hash,
   * computed while it was written), without reading it into memory; storing the same bytes again changes nothing.
   * The file at `path` is gone afterwards, or left for the caller to remove.
   */
  putFile(path: string, mime: MediaMime, sha256: string, bytes: number): Promise<StoredFile>;
  /**
   * The file (or the part of it in `range`, clamped to the file); null when no file has that key. A range that starts
   * past the end reads nothing (an empty body, `range` null): callers check it with `clampRange` first (HTTP 416).
   */
  get(key: string, range?: ByteRange): Promise<MediaRead | null>;
  /** The file's size and type without its bytes; null when absent. */
  stat(key: string): Promise<StoredFile | null>;
  /**
   * A small record kept beside the files under a name (64 hex digits): what the picture workers made of a media source
   * (picture-catalogue.ts), so every replica and every worker sees it. Writing a name again replaces its record whole.
   */
  putRecord(name: string, body: string): Promise<void>;
  /** The record under that name; null when there is none (or the name is not 64 hex digits). */
  getRecord(name: string): Promise<string | null>;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const MEDIA_STORE = Symbol('MEDIA_STORE');

/** A record's name: the SHA-256 (hex) of what it describes. */
export const RECORD_NAME = /^[0-9a-f]{64}$/;

export function mimeOfKey(key: string): MediaMime | null {
  const match = MEDIA_KEY.exec(key);
  if (!match) return null;
  const ext = match[1];
  return (Object.keys(MEDIA_TYPES) as MediaMime[]).find((mime) => MEDIA_TYPES[mime] === ext) ?? null;
}

/** Clamps a range to a file of `size` bytes; null when it starts past the end (HTTP 416). */
export function clampRange(range: ByteRange, size: number): ByteRange | null {
  if (range.start >= size || range.start < 0 || range.end < range.start) return null;
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
