import type { Readable } from 'node:stream';
import type { ByteRange, MediaFileMime } from './media-key';

export interface MediaFileInfo {
  key: string;
  mime: MediaFileMime;
  bytes: number;
}

/**
 * The read side of the media store: what serving a file needs, and all the gateway may do (it never writes). Two
 * engines, the filesystem (`filesystem-media-reader.ts`) and S3-compatible storage (`s3-media-reader.ts`); query-api's
 * media store engines extend them with the write side, so both apps read one layout.
 */
export interface MediaReader {
  readonly engine: 'filesystem' | 's3';
  /** The file's size and type without its bytes; null when absent (or `key` is not a content key). */
  stat(key: string): Promise<MediaFileInfo | null>;
  /**
   * The file's bytes as a stream, or those of `range` (already resolved against the size: its end is clamped to the
   * file); null when absent. The bytes are read as the stream is consumed, never held whole.
   */
  open(key: string, range?: ByteRange): Promise<Readable | null>;
  close(): Promise<void>;
}
