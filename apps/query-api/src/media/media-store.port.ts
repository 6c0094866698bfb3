/**
 * The media store port of query-api: content-addressed files (creative images, video files, poster frames and
 * thumbnails), engine-agnostic. Two engines implement it: the filesystem under DATA_DIR (`./filesystem-media-store.ts`,
 * the default) and S3-compatible object storage (`./s3-media-store.ts`). Both are pinned by one suite,
 * `test/media/media-store.contract.ts`. What a file is (its size, dimensions, perceptual hash) is decided before it is
 * stored (`./media-probe.ts`); engines only keep bytes.
 */

import { clampRange, MEDIA_KEY, mimeOfKey, type ByteRange, type MediaReader } from '@adintel/media-store';
import { MEDIA_TYPES, type MediaMime } from '../store/record-media';

/** The only types the service stores and serves: the store port's (a record's media carries one). */
export { MEDIA_TYPES, type MediaMime };
/** Keys, their layout and the reads are shared with the gateway, which serves the files (`libs/media-store`). */
export { clampRange, MEDIA_KEY, mimeOfKey, type ByteRange };

export interface StoredFile {
  key: string;
  mime: MediaMime;
  bytes: number;
}

export interface MediaRead extends StoredFile {
  /** The bytes asked for: the whole file, or the range. */
  body: Buffer;
  /** The range actually read (null: the whole file). */
  range: ByteRange | null;
}

/** The read side (`stat`, `open`, `close`) is the shared MediaReader's; query-api adds the writes and whole reads. */
export interface MediaStore extends MediaReader {
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
  /**
   * A small record kept beside the files under a name (64 hex digits): what the picture workers made of a media source
   * (picture-catalogue.ts), so every replica and every worker sees it. Writing a name again replaces its record whole.
   */
  putRecord(name: string, body: string): Promise<void>;
  /** The record under that name; null when there is none (or the name is not 64 hex digits). */
  getRecord(name: string): Promise<string | null>;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
}

export const MEDIA_STORE = Symbol('MEDIA_STORE');

/** A record's name: the SHA-256 (hex) of what it describes. */
export const RECORD_NAME = /^[0-9a-f]{64}$/;
