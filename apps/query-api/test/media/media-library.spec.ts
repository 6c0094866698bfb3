import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { FilesystemMediaStore } from '../../src/media/filesystem-media-store';
import { MediaLibrary } from '../../src/media/media-library';
import { Spool } from '../../src/media/spool';
import { THUMBNAIL_SIZE } from '../../src/media/media-probe';
import { hammingDistance, hammingDistanceWithin, hashWords, perceptualHash } from '../../src/media/perceptual-hash';
import { NEAR_DUPLICATE_DISTANCE as NEAR } from '../../src/media/lookalikes';

const svg = (fill: string, text: string) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="${fill}"/>` +
      `<circle cx="150" cy="200" r="120" fill="#fff"/><rect x="330" y="60" width="220" height="280" fill="#000"/>` +
      `<text x="20" y="380" font-family="sans-serif" font-size="30" fill="#888">${text}</text></svg>`,
  );
const png = (fill: string, text: string) => sharp(svg(fill, text)).png().toBuffer();

describe('MediaLibrary', () => {
  let dir: string;
  let library: MediaLibrary;
  let store: FilesystemMediaStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-media-lib-'));
    store = new FilesystemMediaStore(dir);
    library = new MediaLibrary(store);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A video as the picture maker hands it over: written to a spool file while it arrived. */
  const spooled = async (bytes: Buffer) => {
    const spool = await Spool.create(join(dir, 'spool'));
    await spool.write(bytes);
    return spool.finish();
  };

  it('stores an image with its dimensions, bytes, a WebP thumbnail that decodes, and a 64-bit perceptual hash', async () => {
    const image = await png('#3366cc', 'Shop now');
    const outcome = await library.addImage(image);
    if (!('media' in outcome)) throw new Error(outcome.refused);
    expect(outcome.media).toMatchObject({ type: 'image', mime: 'image/png', width: 600, height: 400, bytes: image.length, poster_key: null });
    expect(outcome.media.phash).toMatch(/^[0-9a-f]{64}$/);
    const thumb = await store.get(outcome.media.thumbnail_key);
    const meta = await sharp(thumb?.body).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBe(THUMBNAIL_SIZE);
  });

  it('refuses SVG, bytes that are not an image, and a video that is not an MP4, saying why', async () => {
    expect(await library.addImage(svg('#000', 'x'))).toEqual({ refused: 'image type svg is not allowed (png, jpeg, webp, gif)' });
    expect(await library.addImage(Buffer.from('hello'))).toEqual({ refused: 'not a decodable image' });
    // Refused by their first bytes, before libvips parses them (a TIFF, a HEIF: loaders an ad never needs).
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123' } }).tiff().toBuffer();
    expect(await library.addImage(tiff)).toEqual({ refused: 'image type tiff is not allowed (png, jpeg, webp, gif)' });
    expect(await library.addImage(Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic'), Buffer.alloc(16)]))).toEqual({
      refused: 'image type heif is not allowed (png, jpeg, webp, gif)',
    });
  });

  it('refuses a pixel bomb (a small PNG that decodes past 4096x4096) before decoding it', async () => {
    const bomb = await sharp({ create: { width: 5_000, height: 5_000, channels: 3, background: '#000' } }).png({ compressionLevel: 9 }).toBuffer();
    expect(bomb.length).toBeLessThan(200_000);
    expect(await library.addImage(bomb)).toEqual({ refused: 'image larger than 16777216 pixels (4096x4096)' });
    const poster = await png('#000', 'x');
    expect(await library.addVideo(await spooled(Buffer.from('not a video at all')), poster, { width: 1, height: 1, duration_seconds: 3 })).toEqual({
      refused: 'video is not an MP4 file',
    });
  });

  it('stores a video with its poster frame; the hash and thumbnail are those of the poster', async () => {
    const poster = await png('#aa2222', 'Watch');
    const video = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(500, 1)]);
    const outcome = await library.addVideo(await spooled(video), poster, { width: 1080, height: 1920, duration_seconds: 15 });
    if (!('media' in outcome)) throw new Error(outcome.refused);
    expect(outcome.media).toMatchObject({ type: 'video', mime: 'video/mp4', bytes: video.length, width: 1080, height: 1920, duration_seconds: 15 });
    expect(outcome.media.poster_key).toMatch(/\.png$/);
    expect(outcome.media.phash).toBe(await perceptualHash(poster));
  });

  it('the hash moves little for a recolour, a crop or new words, and much for another design', async () => {
    const base = await png('#3366cc', 'Shop now');
    const distance = async (other: Buffer) => {
      return hammingDistance(hashWords(await perceptualHash(base)), hashWords(await perceptualHash(other)));
    };
    expect(await distance(await png('#cc6633', 'Shop now'))).toBeLessThanOrEqual(NEAR);
    expect(await distance(await png('#3366cc', 'Buy today!'))).toBeLessThanOrEqual(NEAR);
    expect(await distance(await sharp(base).extract({ left: 12, top: 8, width: 576, height: 384 }).png().toBuffer())).toBeLessThanOrEqual(NEAR);
    const other = await sharp(
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="300" height="400" fill="#000"/><rect x="300" width="300" height="400" fill="#fff"/></svg>'),
    )
      .png()
      .toBuffer();
    expect(await distance(other)).toBeGreaterThan(NEAR);
    // The scan's early exit: the same distance up to its bound, some value past the bound beyond it.
    const [a, b] = [hashWords(await perceptualHash(base)), hashWords(await perceptualHash(other))];
    const exact = hammingDistance(a, b);
    expect(hammingDistanceWithin(a, b, 0, exact)).toBe(exact);
    expect(hammingDistanceWithin(a, b, 0, exact - 1)).toBeGreaterThan(exact - 1);
    expect(hammingDistanceWithin(a, b, 0, exact - 1)).toBeLessThanOrEqual(exact);
  });
});
