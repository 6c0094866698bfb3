import { open, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { allDone } from './all-done';
import { DEMO_SCHEME, parseDemoMediaUrl, renderDemoCreative } from './demo-creative';
import { FETCHED_IMAGE_TYPES, FETCHED_VIDEO_TYPES, type MediaFetcher } from './media-fetch';
import { MAX_IMAGE_BYTES, MAX_VIDEO_BYTES, type AddOutcome, type MediaLibrary } from './media-library';
import type { PictureSource } from './picture-job';
import { Spool } from './spool';

/** A refusal that may pass (a fetch that failed: the server may answer later), so the job is tried again later. */
export type MadeOutcome = AddOutcome | { refused: string; retry: true };

/**
 * Fetch refusals that another try would not change (the URL, the address, the answer's type or size): refused at once.
 * Any other failure (a 5xx, a timeout, a connection refused, a name that does not resolve) is tried again later.
 */
const REFUSED_FOR_GOOD = /refused address|resolves to a refused address|redirect|Content-Type|larger than|user info|not an http\(s\) URL|answered 4(0[0-7]|09|1\d)/;

export const isHttpUrl = (url: string) => /^https?:\/\//i.test(url);

/**
 * Makes one media entry's stored file: renders a `demo:` picture, fetches an http(s) URL (when a fetcher is given),
 * or reads a bundle file (when a bundle folder is given), then decodes, checks and stores it (media-library.ts).
 * Offline ingest calls it inline; the picture workers call it for the pictures the live door and the seed queued.
 */
export class PictureMaker {
  constructor(
    private readonly library: MediaLibrary,
    /** The bundle folder; null: relative paths are refused (no bundle given). */
    private readonly bundleDir: string | null,
    /** Fetches http(s) media URLs; absent: such a URL is refused. */
    private readonly fetcher?: MediaFetcher | null,
    /** Where a video is written while it arrives (the data directory: a cluster's /tmp is small). */
    private readonly spoolDir: string = join(tmpdir(), 'adintel-spool'),
  ) {}

  async make(entry: PictureSource): Promise<MadeOutcome> {
    if (entry.url.startsWith(DEMO_SCHEME)) {
      const spec = parseDemoMediaUrl(entry.url);
      if (!spec) return { refused: 'not a demo picture URL' };
      const picture = await this.library.addPixels(await renderDemoCreative(spec));
      if ('refused' in picture || entry.type === 'image') return picture;
      return { media: { ...picture.media, type: 'video', duration_seconds: entry.duration_seconds, poster_key: picture.media.key } };
    }
    if (entry.type === 'video') {
      if (!entry.poster) return { refused: 'a video needs its poster frame (poster)' };
      const spool = await Spool.create(this.spoolDir);
      try {
        const [video, poster] = await allDone([
          this.read(entry.url, MAX_VIDEO_BYTES, FETCHED_VIDEO_TYPES, spool),
          this.read(entry.poster, MAX_IMAGE_BYTES, FETCHED_IMAGE_TYPES),
        ]);
        if ('refused' in video) return video;
        if ('refused' in poster) return { ...poster, refused: `poster: ${poster.refused}` };
        return await this.library.addVideo(await spool.finish(), poster.bytes, entry);
      } finally {
        await spool.discard();
      }
    }
    const image = await this.read(entry.url, MAX_IMAGE_BYTES, FETCHED_IMAGE_TYPES);
    return 'refused' in image ? image : this.library.addImage(image.bytes);
  }

  /**
   * The bytes an entry names: an http(s) URL fetched (Content-Type one of `types`), or a bundle file, refusing paths
   * outside the bundle; either way nothing over `limit` is read.
   */
  private async read(path: string, limit: number, types: readonly string[]): Promise<{ bytes: Buffer } | { refused: string; retry?: true }>;
  private async read(path: string, limit: number, types: readonly string[], spool: Spool): Promise<{ spooled: true } | { refused: string; retry?: true }>;
  private async read(
    path: string,
    limit: number,
    types: readonly string[],
    spool?: Spool,
  ): Promise<{ bytes: Buffer } | { spooled: true } | { refused: string; retry?: true }> {
    if (isHttpUrl(path)) {
      if (!this.fetcher) return { refused: `${JSON.stringify(path)} is an http(s) URL and fetching media is off (MEDIA_FETCH)` };
      const bounds = { allowedTypes: types, maxBytes: limit };
      const fetched = spool ? await this.fetcher.fetchInto(path, bounds, (chunk) => spool.write(chunk)) : await this.fetcher.fetch(path, bounds);
      if (fetched.ok) return 'bytes' in fetched ? { bytes: fetched.bytes } : { spooled: true };
      const refused = `fetching ${JSON.stringify(path)}: ${fetched.reason}`;
      return REFUSED_FOR_GOOD.test(fetched.reason) ? { refused } : { refused, retry: true };
    }
    if (!this.bundleDir) return { refused: 'a media path needs a bundle folder (a live line names media by a demo: or http(s) URL)' };
    if (isAbsolute(path) || path.split(/[\\/]/).includes('..')) return { refused: `path ${JSON.stringify(path)} leaves the bundle` };
    let file: string;
    try {
      file = await realpath(resolve(this.bundleDir, path));
    } catch {
      return { refused: `file ${JSON.stringify(path)} not found in the bundle` };
    }
    const root = await realpath(this.bundleDir);
    const inside = relative(root, file);
    if (!inside || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return { refused: `path ${JSON.stringify(path)} leaves the bundle` };
    const handle = await open(file, 'r');
    try {
      const size = (await handle.stat()).size;
      if (size > limit) return { refused: `file ${JSON.stringify(path)} is larger than ${limit} bytes` };
      if (!spool) return { bytes: await handle.readFile() };
      for await (const chunk of handle.createReadStream({ autoClose: false })) await spool.write(chunk as Buffer);
      return { spooled: true };
    } finally {
      await handle.close();
    }
  }
}
