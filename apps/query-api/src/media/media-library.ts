import sharp from 'sharp';
import { allDone } from './all-done';
import type { RawImage } from './demo-creative';
import { isMp4, probeImage, thumbnailOf } from './media-probe';
import type { MediaMime, MediaStore } from './media-store.port';
import { perceptualHash } from './perceptual-hash';
import type { SpooledFile } from './spool';
import type { StoredMedia } from './stored-media';

/** Bounds of what ingest accepts (a larger file is a rejected line with its reason). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_VIDEO_BYTES = 200 * 1024 * 1024;

export type AddOutcome = { media: StoredMedia } | { refused: string };

/**
 * The media store failed to keep a file (S3 or the disk unavailable): not something wrong with the file, so ingest
 * does not reject the line for it but fails (the live door then leaves its batch unacknowledged, to be applied again).
 */
export class MediaStoreError extends Error {
  constructor(cause: unknown) {
    super(`the media store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * Puts creative files into the media store: decodes and checks each one, stores it under its content key with a
 * thumbnail, and returns the entry ad records carry. The same bytes give the same keys, so adding a file twice stores
 * it once.
 */
export class MediaLibrary {
  constructor(private readonly store: MediaStore) {}

  async addImage(bytes: Buffer): Promise<AddOutcome> {
    if (bytes.length > MAX_IMAGE_BYTES) return { refused: `image larger than ${MAX_IMAGE_BYTES} bytes` };
    const probed = await probeImage(bytes);
    if ('refused' in probed) return probed;
    return this.add(bytes, probed.mime, probed.pixels);
  }

  /** Pixels made here (the demo pictures): encoded as WebP and stored, with no decoding of what was just encoded. */
  async addPixels(raw: RawImage): Promise<AddOutcome> {
    const pixels = sharp(raw.data, { raw });
    return this.add(await pixels.clone().webp({ quality: 80, effort: 0 }).toBuffer(), 'image/webp', pixels);
  }

  private async add(bytes: Buffer, mime: MediaMime, pixels: sharp.Sharp): Promise<AddOutcome> {
    const { width = 0, height = 0 } = await pixels.metadata();
    const [file, thumbnail, phash] = await allDone([
      this.put(bytes, mime),
      thumbnailOf(pixels.clone()).then((thumb) => this.put(thumb, 'image/webp')),
      perceptualHash(pixels.clone()),
    ]);
    return {
      media: {
        type: 'image',
        key: file.key,
        mime: file.mime,
        bytes: file.bytes,
        width,
        height,
        duration_seconds: null,
        thumbnail_key: thumbnail.key,
        poster_key: null,
        phash,
      },
    };
  }

  private put(bytes: Buffer, mime: MediaMime) {
    return this.store.put(bytes, mime).catch((error: unknown) => {
      throw new MediaStoreError(error);
    });
  }

  /**
   * A video and its poster frame (an image, decoded and checked like any). Without a decoder for video on board, the
   * video's own dimensions and duration are the ones its line states; its bytes must be an MP4. The video comes as a
 * spooled file (spool.ts), moved into the store without being read into memory.
   */
  async addVideo(video: SpooledFile, poster: Buffer, claimed: { width: number; height: number; duration_seconds: number | null }): Promise<AddOutcome> {
    if (video.bytes > MAX_VIDEO_BYTES) return { refused: `video larger than ${MAX_VIDEO_BYTES} bytes` };
    if (!isMp4(video.head)) return { refused: 'video is not an MP4 file' };
    const frame = await this.addImage(poster);
    if ('refused' in frame) return { refused: `poster: ${frame.refused}` };
    const file = await this.store.putFile(video.path, 'video/mp4', video.sha256, video.bytes).catch((error: unknown) => {
      throw new MediaStoreError(error);
    });
    return {
      media: {
        ...frame.media,
        type: 'video',
        key: file.key,
        mime: file.mime,
        bytes: file.bytes,
        width: claimed.width,
        height: claimed.height,
        duration_seconds: claimed.duration_seconds,
        poster_key: frame.media.key,
      },
    };
  }
}
