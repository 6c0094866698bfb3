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

/**
 * The entries with the stored file of each URL `held` has one for (what the store holds for the same ad, or for its
 * creative): a live line carries its media as published, and the file was stored (or the demo picture rendered) when
 * the URL was first loaded, so a re-sighting keeps its pictures and its re-delivery changes nothing. Both ad engines'
 * live writers apply it, and the live door before it resolves what is left (src/live).
 */
export function keepingStoredMedia(media: RecordMedia[], held: readonly RecordMedia[]): RecordMedia[] {
  if (!media.some((m) => !m.stored)) return media;
  const stored = new Map(held.flatMap((m) => (m.stored ? [[m.url, m.stored] as const] : [])));
  if (!stored.size) return media;
  return media.map((m) => (m.stored || !stored.has(m.url) ? m : { ...m, stored: stored.get(m.url) as StoredMedia }));
}
