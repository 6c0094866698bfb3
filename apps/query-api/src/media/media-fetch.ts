import { PublicFetcher } from '@adintel/public-fetch';
import type { AppConfig } from '../config';
import { MAX_IMAGE_BYTES, MAX_VIDEO_BYTES } from './media-library';

/** What ingest asks of a fetcher (libs/public-fetch: public addresses only, no redirects, bounded, typed). */
export type MediaFetcher = Pick<PublicFetcher, 'fetch' | 'fetchInto'>;

/** Content-Types a fetched picture (an image, a video's poster frame) or video may come with: the stored types. */
export const FETCHED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export const FETCHED_VIDEO_TYPES = ['video/mp4'] as const;

/** The fetcher of http(s) media URLs when MEDIA_FETCH is on, else null (such entries keep their URL, without a file). */
export function createMediaFetcher(config: Pick<AppConfig, 'MEDIA_FETCH' | 'MEDIA_FETCH_TIMEOUT_MS' | 'MEDIA_FETCH_ALLOW_LOOPBACK'>): PublicFetcher | null {
  if (!config.MEDIA_FETCH) return null;
  // MEDIA_FETCH_ALLOW_LOOPBACK: tests only (the config refuses it in production).
  return new PublicFetcher({ timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS, maxBytes: Math.max(MAX_IMAGE_BYTES, MAX_VIDEO_BYTES), allowLoopback: config.MEDIA_FETCH_ALLOW_LOOPBACK });
}
