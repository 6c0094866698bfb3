import sharp from 'sharp';
import type { MediaMime } from './media-store.port';

/** What decoding a file told: its served type and dimensions. */
export interface ProbedImage {
  mime: MediaMime;
  width: number;
  height: number;
}

const IMAGE_FORMATS: Record<string, MediaMime> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

/**
 * Largest side of a stored image, and of the pixels a decoder may be asked to hold (a decompression bomb stops here):
 * 4096x4096 is far beyond any ad creative, and its decoded RGBA (64 MiB) fits a picture worker's memory.
 */
export const MAX_IMAGE_SIDE = 4_096;
const MAX_INPUT_PIXELS = MAX_IMAGE_SIDE * MAX_IMAGE_SIDE;

/**
 * Decodes an image: its type from the bytes (never from a name or a claim) and its pixels, or why it is refused.
 * The pixels (decoded once) feed the thumbnail and the hash.
 */
export async function probeImage(bytes: Buffer): Promise<(ProbedImage & { pixels: sharp.Sharp }) | { refused: string }> {
  // libvips picks its loader from the bytes: only bytes that start as an allowed type reach it, so its TIFF, SVG, HEIF,
  // PDF... loaders never parse what a producer sent.
  const sniffed = sniffImage(bytes);
  if (sniffed === null) return { refused: 'not a decodable image' };
  if (!(sniffed in IMAGE_FORMATS)) return { refused: `image type ${sniffed} is not allowed (png, jpeg, webp, gif)` };
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch (error) {
    // A header that announces more pixels than the bound (a decompression bomb) is refused by libvips before decoding.
    if (/pixel limit/i.test((error as Error).message)) return { refused: `image larger than ${MAX_INPUT_PIXELS} pixels (${MAX_IMAGE_SIDE}x${MAX_IMAGE_SIDE})` };
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

/**
 * The image type the first bytes announce: the allowed ones (png, jpeg, webp, gif), a few refused ones named so the
 * refusal says why (svg, tiff, heif), or null.
 */
export function sniffImage(bytes: Buffer): string | null {
  const ascii = (start: number, end: number) => bytes.toString('latin1', start, end);
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (bytes.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (bytes.length >= 4 && (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*')) return 'tiff';
  if (bytes.length >= 12 && ascii(4, 8) === 'ftyp') return 'heif';
  if (/^\s*(<\?xml|<svg|<!DOCTYPE svg)/i.test(ascii(0, 256))) return 'svg';
  return null;
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
