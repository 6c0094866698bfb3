import type { MediaMime } from './media-store.port';

/**
 * One media entry of an ad once its file is in the media store: what the ad records carry (both ad engines keep the
 * record's media as written), and what the services turn into the public `Media` with service URLs.
 */
export interface StoredMedia {
  type: 'image' | 'video';
  /** The file: an image, or the video itself. */
  key: string;
  mime: MediaMime;
  bytes: number;
  width: number;
  height: number;
  duration_seconds: number | null;
  /** A WebP of at most THUMBNAIL_SIZE px (of the image, or of the video's poster frame). */
  thumbnail_key: string;
  /** A video's poster frame (an image); null for an image. */
  poster_key: string | null;
  /** Perceptual hash (perceptual-hash.ts) of the image or of the poster frame. */
  phash: string;
}

/** A media entry as an ad record holds it: as ingested, plus the stored file when there is one. */
export interface RecordMedia {
  type: 'image' | 'video';
  url: string;
  width: number;
  height: number;
  duration_seconds: number | null;
  /** A video's poster frame, as a bundle path (ingest only). */
  poster?: string;
  stored?: StoredMedia;
}
