import sharp from 'sharp';

/** The image is shrunk to SAMPLE x SAMPLE grey pixels; the hash keeps the LOW x LOW lowest frequencies of its DCT. */
const SAMPLE = 32;
const LOW = 16;
export const HASH_BITS = LOW * LOW;
/** 32-bit words of one hash. */
export const HASH_WORDS = HASH_BITS / 32;

/** cos((2x + 1) u pi / 2N) for the DCT-II, computed once. */
const COSINES = (() => {
  const table = new Float64Array(LOW * SAMPLE);
  for (let u = 0; u < LOW; u++) for (let x = 0; x < SAMPLE; x++) table[u * SAMPLE + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * SAMPLE));
  return table;
})();

/**
 * A 256-bit perceptual hash (pHash) of an image, as 64 hex digits: the image in grey shrunk to 32x32 pixels, its 2-D
 * discrete cosine transform, and one bit per coefficient of the 16x16 lowest frequencies (is it above their median).
 * Low frequencies are the picture's large light and dark areas: re-encoding, resizing, a colour change that keeps
 * them, a small crop or a changed line of text move few bits; another design moves about half. (A difference hash,
 * tried first, flips bits in flat areas at the smallest crop.)
 */
export async function perceptualHash(image: Buffer | sharp.Sharp): Promise<string> {
  const pixels = await (Buffer.isBuffer(image) ? sharp(image) : image).flatten({ background: '#ffffff' }).greyscale().resize(SAMPLE, SAMPLE, { fit: 'fill' }).raw().toBuffer();
  // Rows first (SAMPLE x LOW), then columns (LOW x LOW).
  const rows = new Float64Array(SAMPLE * LOW);
  for (let y = 0; y < SAMPLE; y++) {
    for (let u = 0; u < LOW; u++) {
      let sum = 0;
      for (let x = 0; x < SAMPLE; x++) sum += (pixels[y * SAMPLE + x] as number) * (COSINES[u * SAMPLE + x] as number);
      rows[y * LOW + u] = sum;
    }
  }
  const coefficients = new Float64Array(LOW * LOW);
  for (let v = 0; v < LOW; v++) {
    for (let u = 0; u < LOW; u++) {
      let sum = 0;
      for (let y = 0; y < SAMPLE; y++) sum += (rows[y * LOW + u] as number) * (COSINES[v * SAMPLE + y] as number);
      coefficients[v * LOW + u] = sum;
    }
  }
  // The DC term (the mean brightness) says nothing about the layout: the median is taken without it.
  const median = [...coefficients.subarray(1)].sort((a, b) => a - b)[Math.floor((LOW * LOW - 1) / 2)] as number;
  let hex = '';
  for (let i = 0; i < LOW * LOW; i += 4) {
    let nibble = 0;
    for (let b = 0; b < 4; b++) nibble = (nibble << 1) | ((coefficients[i + b] as number) > median ? 1 : 0);
    hex += nibble.toString(16);
  }
  return hex;
}

/** A hash as HASH_WORDS 32-bit words, the form the look-alike scans compare. */
export function hashWords(hex: string): Uint32Array {
  const words = new Uint32Array(HASH_WORDS);
  for (let w = 0; w < HASH_WORDS; w++) words[w] = Number.parseInt(hex.slice(w * 8, w * 8 + 8), 16) >>> 0;
  return words;
}

function popcount32(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Bits that differ between hash `a` and the hash at word offset `at` of `b` (0..HASH_BITS). */
export function hammingDistance(a: Uint32Array, b: Uint32Array, at = 0): number {
  let distance = 0;
  for (let w = 0; w < HASH_WORDS; w++) distance += popcount32(((a[w] as number) ^ (b[at + w] as number)) >>> 0);
  return distance;
}

/**
 * hammingDistance, but it stops counting once the distance passes `max` (then returns a value above `max`): a scan
 * over every picture mostly meets unrelated ones, about half their bits apart, and leaves them after half the words.
 */
export function hammingDistanceWithin(a: Uint32Array, b: Uint32Array, at: number, max: number): number {
  let distance = 0;
  for (let w = 0; w < HASH_WORDS && distance <= max; w++) distance += popcount32(((a[w] as number) ^ (b[at + w] as number)) >>> 0);
  return distance;
}
