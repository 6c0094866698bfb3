import sharp from 'sharp';
import type { MediaMime } from './media-store.port';

/** What decoding a file told: its served type and dimensions. */
export interface ProbedImage {
  mime: MediaMime;
  width: number;
  height: number;
}

const IMAGE_FORMATS: Record<string, MediaMime> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

/** Largest side of a stored image, and of the pixels a decoder may be asked to hold (a decompression bomb stops here). */
export const MAX_IMAGE_SIDE = 8_192;
const MAX_INPUT_PIXELS = MAX_IMAGE_SIDE * MAX_IMAGE_SIDE;

/**
 * Decodes an image: its type from the bytes (never from a name or a claim) and its pixels, or why it is refused.
 * The pixels (decoded once) feed the thumbnail and the hash.
 */
export async function probeImage(bytes: Buffer): Promise<(ProbedImage & { pixels: sharp.Sharp }) | { refused: string }> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    return { refused: 'not a decodable image' };
  }
  const mime = meta.format ? IMAGE_FORMATS[meta.format] : undefined;
  if (!mime) return { refused: `image type ${meta.format ?? 'unknown'} is not allowed (png, jpeg, webp, gif)` };
  if (!meta.width || !meta.height) return { refused: 'image has no dimensions' };
  if (meta.width > MAX_IMAGE_SIDE || meta.height > MAX_IMAGE_SIDE) return { refused: `image larger than ${MAX_IMAGE_SIDE} px on a side` };
  // Decode the whole image once: a truncated or corrupt body fails here, not when it is served.
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).raw().toBuffer({ resolveWithObject: true });
    return { mime, width: meta.width, height: meta.height, pixels: sharp(data, { raw: info }) };
  } catch {
    return { refused: 'image does not decode' };
  }
}

/** An MP4 (ISO base media) file starts with an `ftyp` box; nothing else is taken as a video. */
export function isMp4(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString('latin1', 4, 8) === 'ftyp';
}

/** Thumbnail: the image fitted inside a square of this many pixels, as WebP. */
export const THUMBNAIL_SIZE = 256;

export async function thumbnailOf(image: sharp.Sharp): Promise<Buffer> {
  return image.resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 72, effort: 0 }).toBuffer();
}
