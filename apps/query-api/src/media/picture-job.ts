import { createHash } from 'node:crypto';
import type { RecordMedia } from './stored-media';

/** What a picture worker needs to make one picture: the media entry as ingested (no stored file yet). */
export type PictureSource = Pick<RecordMedia, 'type' | 'url' | 'width' | 'height' | 'duration_seconds'> & { poster?: string };

/**
 * One picture to make: the source, and the creatives whose first picture it is (their look-alike hashes follow it,
 * lookalike-index.service.ts). Jobs are JSON on the picture queue (picture-queue.ts).
 */
export interface PictureJob {
  readonly source: PictureSource;
  readonly creatives: readonly string[];
}

/**
 * What identifies a source: its URL, and for a video also its poster frame and its stated size (a video's stored
 * dimensions and duration are the ones its line states). The same source is made once, however many ads carry it.
 */
export function sourceKeyOf(entry: PictureSource): string {
  return entry.type === 'video' ? `${entry.url}\n${entry.poster ?? ''}\n${entry.width}x${entry.height}/${entry.duration_seconds}` : entry.url;
}

/** The name of a source's record in the picture catalogue. */
export function sourceDigest(entry: PictureSource): string {
  return createHash('sha256').update(sourceKeyOf(entry)).digest('hex');
}

/** The source part of an entry (what a job carries). */
export function pictureSource(entry: RecordMedia): PictureSource {
  const { type, url, width, height, duration_seconds, poster } = entry;
  return { type, url, width, height, duration_seconds, ...(poster === undefined ? {} : { poster }) };
}
