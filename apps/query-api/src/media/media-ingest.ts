import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { AdRecord, RejectedRow } from '../store/ad-store.port';
import { DEMO_SCHEME, parseDemoMediaUrl, renderDemoCreative } from './demo-creative';
import { FETCHED_IMAGE_TYPES, FETCHED_VIDEO_TYPES, type MediaFetcher } from './media-fetch';
import { MAX_IMAGE_BYTES, MAX_VIDEO_BYTES, MediaStoreError, type AddOutcome, type MediaLibrary } from './media-library';
import type { RecordMedia } from './stored-media';

/** Files read at once while a batch's media is stored (sharp decodes on its own thread pool). */
const CONCURRENCY = 4;

/**
 * Puts the media of ingested ads into the media store and records what was stored on each entry (`stored`).
 * A media entry's `url` is one of:
 * - a path relative to the bundle folder (the folder of the NDJSON file), e.g. `media/cr_1/0.png`; a video names its
 *   poster frame the same way in `poster`. Paths may not leave the folder (no `..`, no absolute paths, no links out);
 * - `demo:…`: a demo picture, rendered (demo-creative.ts); a demo video is held as its poster frame only (nothing here
 *   encodes video);
 * - an `http(s)` URL: fetched when a fetcher is given (MEDIA_FETCH; media-fetch.ts, with the guards of
 *   libs/public-fetch), else kept as it is (the entry has no stored file).
 * A file refused (missing, too large, not an allowed type, not decodable) rejects the line, with the entry and why.
 * Each distinct source is stored once per run, however many ads carry it.
 */
export class MediaIngest {
  private readonly outcomes = new Map<string, Promise<AddOutcome>>();

  constructor(
    private readonly library: MediaLibrary,
    /** The bundle folder; null: relative paths are refused (no bundle given). */
    private readonly bundleDir: string | null,
    /** The demo pictures to render (the seed's budget); absent: all. Others are kept as they are, with no file. */
    private readonly demoPictures?: ReadonlySet<string>,
    /** Fetches http(s) media URLs; absent: they are kept as they are, with no file. */
    private readonly fetcher?: MediaFetcher | null,
  ) {}

  /**
   * The records with their media stored, and the rows refused for their media. An entry that has its stored file
   * already, or whose URL is in `keep`, is kept as it is.
   */
  async resolve(records: readonly AdRecord[], keep: ReadonlySet<string> = new Set()): Promise<{ records: AdRecord[]; rejected: RejectedRow[] }> {
    const jobs: (() => Promise<unknown>)[] = [];
    for (const record of records) {
      for (const entry of record.media) {
        const key = this.sourceKey(entry, keep);
        if (key && !this.outcomes.has(key)) {
          let settle!: (outcome: AddOutcome) => void;
          this.outcomes.set(key, new Promise<AddOutcome>((done) => (settle = done)));
          jobs.push(() =>
            this.store(entry).then(settle, (error: unknown) => {
              // A failing media store fails the run (nothing is wrong with the line); anything else refuses the entry.
              if (error instanceof MediaStoreError) throw error;
              settle({ refused: error instanceof Error ? error.message : String(error) });
            }),
          );
        }
      }
    }
    await runPool(jobs, CONCURRENCY);
    const kept: AdRecord[] = [];
    const rejected: RejectedRow[] = [];
    for (const record of records) {
      const media: RecordMedia[] = [];
      let refusal: string | null = null;
      for (const [index, entry] of record.media.entries()) {
        const key = this.sourceKey(entry, keep);
        const outcome = key ? await this.outcomes.get(key) : null;
        if (outcome && 'refused' in outcome) {
          refusal = `media[${index}]: ${outcome.refused}`;
          break;
        }
        media.push(outcome ? { ...entry, stored: outcome.media } : entry);
      }
      if (refusal) rejected.push({ line: 0, id: record.id, reason: refusal });
      else kept.push({ ...record, media });
    }
    return { records: kept, rejected };
  }

  private async store(entry: RecordMedia): Promise<AddOutcome> {
    if (entry.url.startsWith(DEMO_SCHEME)) {
      const spec = parseDemoMediaUrl(entry.url);
      if (!spec) return { refused: 'not a demo picture URL' };
      const picture = await this.library.addPixels(await renderDemoCreative(spec));
      if ('refused' in picture || entry.type === 'image') return picture;
      return { media: { ...picture.media, type: 'video', duration_seconds: entry.duration_seconds, poster_key: picture.media.key } };
    }
    if (entry.type === 'video') {
      if (!entry.poster) return { refused: 'a video needs its poster frame (poster)' };
      const [video, poster] = await Promise.all([
        this.read(entry.url, MAX_VIDEO_BYTES, FETCHED_VIDEO_TYPES),
        this.read(entry.poster, MAX_IMAGE_BYTES, FETCHED_IMAGE_TYPES),
      ]);
      if ('refused' in video) return video;
      if ('refused' in poster) return { refused: `poster: ${poster.refused}` };
      return this.library.addVideo(video.bytes, poster.bytes, entry);
    }
    const image = await this.read(entry.url, MAX_IMAGE_BYTES, FETCHED_IMAGE_TYPES);
    return 'refused' in image ? image : this.library.addImage(image.bytes);
  }

  /**
   * The bytes an entry names: an http(s) URL fetched (Content-Type one of `types`), or a bundle file, refusing paths
   * outside the bundle; either way nothing over `limit` is read.
   */
  private async read(path: string, limit: number, types: readonly string[]): Promise<{ bytes: Buffer } | { refused: string }> {
    if (isHttpUrl(path)) {
      if (!this.fetcher) return { refused: `${JSON.stringify(path)} is an http(s) URL and fetching media is off (MEDIA_FETCH)` };
      const fetched = await this.fetcher.fetch(path, { allowedTypes: types, maxBytes: limit });
      return fetched.ok ? { bytes: fetched.bytes } : { refused: `fetching ${JSON.stringify(path)}: ${fetched.reason}` };
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
      return { bytes: await handle.readFile() };
    } finally {
      await handle.close();
    }
  }

  /**
   * What identifies a stored source; null for an entry kept as it is (stored already, kept by the caller, an http(s) URL
   * with fetching off, a demo picture over budget).
   */
  private sourceKey(entry: RecordMedia, keep: ReadonlySet<string>): string | null {
    if (entry.stored || keep.has(entry.url)) return null;
    if (isHttpUrl(entry.url) && !this.fetcher) return null;
    if (this.demoPictures && entry.url.startsWith(DEMO_SCHEME) && !this.demoPictures.has(entry.url)) return null;
    return entry.type === 'video' ? `${entry.url}\n${entry.poster ?? ''}\n${entry.width}x${entry.height}/${entry.duration_seconds}` : entry.url;
  }
}

const isHttpUrl = (url: string) => /^https?:\/\//i.test(url);

async function runPool(jobs: (() => Promise<unknown>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await (jobs[next++] as () => Promise<unknown>)();
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
}
