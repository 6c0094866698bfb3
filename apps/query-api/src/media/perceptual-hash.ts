import sharp from 'sharp';

/**
 * A 64-bit difference hash (dHash) of an image, as 16 hex digits: the image in grey, shrunk to 9x8 pixels, one bit per
 * pair of horizontal neighbours (is the left one brighter). Re-encoding, resizing, a colour change that keeps the
 * light and dark areas, a small crop or a changed line of text move a few bits; another design moves about half.
 */
export async function perceptualHash(image: Buffer): Promise<string> {
  const { data } = await sharp(image).flatten({ background: '#ffffff' }).greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  let hash = 0n;
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const left = data[row * 9 + col] ?? 0;
      const right = data[row * 9 + col + 1] ?? 0;
      hash = (hash << 1n) | (left > right ? 1n : 0n);
    }
  }
  return hash.toString(16).padStart(16, '0');
}

/** A hash as two 32-bit halves, the form the look-alike scans compare. */
export function hashWords(hex: string): [number, number] {
  return [Number.parseInt(hex.slice(0, 8), 16) >>> 0, Number.parseInt(hex.slice(8, 16), 16) >>> 0];
}

function popcount32(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Bits that differ between two hashes given as halves (0..64). */
export function hammingDistance(aHigh: number, aLow: number, bHigh: number, bLow: number): number {
  return popcount32((aHigh ^ bHigh) >>> 0) + popcount32((aLow ^ bLow) >>> 0);
}
