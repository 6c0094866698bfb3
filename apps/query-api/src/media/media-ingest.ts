import type { AdRecord, RejectedRow } from '../store/ad-store.port';
import { allDone } from './all-done';
import { DEMO_SCHEME } from './demo-creative';
import type { MediaFetcher } from './media-fetch';
import { MediaStoreError, type AddOutcome, type MediaLibrary } from './media-library';
import { pictureSource, sourceKeyOf, type PictureJob } from './picture-job';
import { isHttpUrl, PictureMaker } from './picture-maker';
import type { RecordMedia } from './stored-media';

/** Files read at once while a batch's media is stored (sharp decodes on its own thread pool). */
const CONCURRENCY = 4;

/**
 * The pictures an ingest leaves to the picture workers (docs/media.md, "Pictures off the ingest path"): the entries are
 * applied `pending`, and each distinct source becomes one job, with the creatives whose first picture it is.
 */
export class PictureBacklog {
  private readonly jobs = new Map<string, { job: PictureJob; creatives: Set<string> }>();

  /** `fetching`: MEDIA_FETCH is on, so an http(s) URL is a picture to make (else it is kept without a file). */
  constructor(readonly fetching: boolean) {}

  add(entry: RecordMedia, firstOf: string | null): void {
    const key = sourceKeyOf(entry);
    let item = this.jobs.get(key);
    if (!item) {
      item = { job: { source: pictureSource(entry), creatives: [] }, creatives: new Set() };
      this.jobs.set(key, item);
    }
    if (firstOf !== null) item.creatives.add(firstOf);
  }

  get size(): number {
    return this.jobs.size;
  }

  /** The jobs gathered so far, in the order their sources were first met; the backlog starts over empty. */
  take(): PictureJob[] {
    const jobs = [...this.jobs.values()].map(({ job, creatives }) => ({ ...job, creatives: [...creatives] }));
    this.jobs.clear();
    return jobs;
  }
}

/**
 * Puts the media of ingested ads into the media store and records what was stored on each entry (`stored`).
 * A media entry's `url` is one of:
 * - a path relative to the bundle folder (the folder of the NDJSON file), e.g. `media/cr_1/0.png`; a video names its
 *   poster frame the same way in `poster`. Paths may not leave the folder (no `..`, no absolute paths, no links out);
 * - `demo:…`: a demo picture, rendered (demo-creative.ts); a demo video is held as its poster frame only (nothing here
 *   encodes video);
 * - an `http(s)` URL: fetched when a fetcher is given (MEDIA_FETCH; media-fetch.ts, with the guards of
 *   libs/public-fetch), else kept as it is (the entry has no stored file).
 * With a `later` backlog, `demo:` and http(s) pictures are not made here: their entries are kept `pending` and their
 * jobs gathered for the picture workers (the live door, the seed); bundle files are always read here.
 * A file refused (missing, too large, not an allowed type, not decodable) rejects the line, with the entry and why.
 * Each distinct source is stored once per run, however many ads carry it.
 */
export class MediaIngest {
  private readonly outcomes = new Map<string, Promise<AddOutcome>>();
  private readonly maker: PictureMaker;

  constructor(
    library: MediaLibrary,
    /** The bundle folder; null: relative paths are refused (no bundle given). */
    bundleDir: string | null,
    /** The demo pictures to make (the seed's budget); absent: all. Others are kept as they are, with no file. */
    private readonly demoPictures?: ReadonlySet<string>,
    /** Fetches http(s) media URLs; absent: they are kept as they are, with no file. */
    private readonly fetcher?: MediaFetcher | null,
    /** Where pictures go to be made later; absent: they are made here, before the records are returned. */
    private readonly later?: PictureBacklog | null,
  ) {
    this.maker = new PictureMaker(library, bundleDir, fetcher);
  }

  /**
   * The records with their media stored (or pending), and the rows refused for their media. An entry that has its
   * stored file already, or whose URL is in `keep`, is kept as it is.
   */
  async resolve(records: readonly AdRecord[], keep: ReadonlySet<string> = new Set()): Promise<{ records: AdRecord[]; rejected: RejectedRow[] }> {
    const jobs: (() => Promise<unknown>)[] = [];
    for (const record of records) {
      for (const [index, entry] of record.media.entries()) {
        const key = this.sourceKey(entry, keep);
        if (key && this.deferred(entry)) {
          this.later?.add(entry, index === 0 ? record.creative_id : null);
          continue;
        }
        if (key && !this.outcomes.has(key)) {
          let settle!: (outcome: AddOutcome) => void;
          this.outcomes.set(key, new Promise<AddOutcome>((done) => (settle = done)));
          jobs.push(() =>
            this.maker.make(entry).then(settle, (error: unknown) => {
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
        if (key && this.deferred(entry)) {
          media.push({ ...entry, pending: true });
          continue;
        }
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

  /** Whether the picture workers make this entry's picture (rendered or fetched) rather than this ingest. */
  private deferred(entry: RecordMedia): boolean {
    return !!this.later && (entry.url.startsWith(DEMO_SCHEME) || isHttpUrl(entry.url));
  }

  /**
   * What identifies a stored source; null for an entry kept as it is (stored or pending already, kept by the caller,
   * an http(s) URL with fetching off, a demo picture over budget).
   */
  private sourceKey(entry: RecordMedia, keep: ReadonlySet<string>): string | null {
    if (entry.stored || entry.pending || keep.has(entry.url)) return null;
    if (isHttpUrl(entry.url) && !(this.fetcher || this.later?.fetching)) return null;
    if (this.demoPictures && entry.url.startsWith(DEMO_SCHEME) && !this.demoPictures.has(entry.url)) return null;
    return sourceKeyOf(entry);
  }
}

async function runPool(jobs: (() => Promise<unknown>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await (jobs[next++] as () => Promise<unknown>)();
  };
  // A worker stops at its job's error; the run's error is thrown once every worker has stopped.
  await allDone(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
}
