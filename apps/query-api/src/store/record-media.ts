/**
 * The media an ad record carries, as the store port speaks of it: the store owns these types (no import of a feature
 * folder from store/); media/ re-exports them (media/stored-media.ts, media/media-store.port.ts).
 */

// The media key's own entry point, not the library's index: that one brings the S3 reader, which the store's
// writer thread (bundled apart) has no use for.
import { MEDIA_FILE_TYPES, type MediaFileMime } from '@adintel/media-store/media-key';

/** The only types the service stores and serves, with their file extensions: those of a media key. */
export const MEDIA_TYPES = MEDIA_FILE_TYPES;
export type MediaMime = MediaFileMime;

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
  /**
   * The picture is made after the ad was applied, by the picture workers (media/picture-worker.ts): what they made is
   * in the picture catalogue (media/picture-catalogue.ts), which the reads consult while the record says pending.
   */
  pending?: true;
}

/**
 * The entries with the stored file of each URL `held` has one for (what the store holds for the same ad, or for its
 * creative): a live line carries its media as published, and the file was stored (or the demo picture rendered) when
 * the URL was first loaded, so a re-sighting keeps its pictures and its re-delivery changes nothing. Both ad engines'
 * live writers apply it, and the live door before it resolves what is left. A URL still pending in `held` stays
 * pending (the picture workers have its job already).
 */
export function keepingStoredMedia(media: RecordMedia[], held: readonly RecordMedia[]): RecordMedia[] {
  if (!media.some((m) => !m.stored && !m.pending)) return media;
  const kept = keptByUrl(held);
  if (!kept.size) return media;
  return media.map((m) => (m.stored || m.pending || !kept.has(m.url) ? m : { ...m, ...kept.get(m.url) }));
}

type Kept = Pick<RecordMedia, 'stored' | 'pending'>;

/**
 * What `held` keeps of each URL (its stored file, or that it is pending), built once per list: the live door passes
 * one list (what the store holds for a whole batch) for every record of the batch, and building it per record cost
 * O(batch²) (1.2 s of the main thread's 2.4 s over 4,000 sightings at 100k ads, profiled).
 */
const keptByUrlOf = new WeakMap<readonly RecordMedia[], Map<string, Kept>>();
function keptByUrl(held: readonly RecordMedia[]): Map<string, Kept> {
  let kept = keptByUrlOf.get(held);
  if (!kept) {
    kept = new Map();
    for (const m of held) {
      if (m.stored) kept.set(m.url, { stored: m.stored });
      else if (m.pending) kept.set(m.url, { pending: true });
    }
    keptByUrlOf.set(held, kept);
  }
  return kept;
}
