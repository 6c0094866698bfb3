import { hostname } from 'node:os';
import { MediaStoreError } from './media-library';
import type { PictureCatalogue } from './picture-catalogue';
import type { PictureMaker } from './picture-maker';
import type { PictureQueue, QueuedPicture } from './picture-queue';

export interface PictureWorkerOptions {
  /** Jobs in hand at once (sharp decodes and encodes on its own threads; librsvg renders one SVG at a time). */
  readonly concurrency: number;
  /** A job taken by a worker that has not finished it after this long is taken over (that worker died on it). */
  readonly claimIdleMs: number;
  /** Longest wait for a new job before the worker looks at retries and stale jobs again. */
  readonly blockMs: number;
  /** Failed fetches of a source before it is refused for good; the waits between them grow fourfold. */
  readonly maxAttempts: number;
  readonly firstBackoffMs: number;
  /** A job delivered this many times without being finished (its worker died each time) is refused for good. */
  readonly maxDeliveries: number;
  readonly consumer: string;
}

export const DEFAULT_WORKER_OPTIONS: PictureWorkerOptions = {
  concurrency: 2,
  claimIdleMs: 60_000,
  blockMs: 2_000,
  maxAttempts: 4,
  firstBackoffMs: 60_000,
  maxDeliveries: 3,
  consumer: `${hostname()}:${process.pid}`,
};

export type JobOutcome = 'made' | 'known' | 'retrying' | 'failed';

type Log = (fields: Record<string, unknown>) => void;

/**
 * A picture worker (docs/media.md, "Pictures off the ingest path"): takes jobs from the picture queue, makes each
 * picture (renders a demo picture, or fetches and decodes a file), records it in the picture catalogue, and only
 * then takes the job off the queue. So a job is done exactly once in effect: a worker that dies leaves it pending for
 * another (after `claimIdleMs`), a job whose source is in the catalogue already is finished without work, and the
 * files are content-addressed (making one twice stores it once). A failed fetch is tried again after a backoff; a job
 * that kills its worker `maxDeliveries` times (a decoder that runs out of memory) is refused for good.
 */
export class PictureWorker {
  private readonly counts: Record<JobOutcome, number> = { made: 0, known: 0, retrying: 0, failed: 0 };

  constructor(
    private readonly queue: PictureQueue,
    private readonly catalogue: PictureCatalogue,
    private readonly maker: PictureMaker,
    private readonly log: Log,
    private readonly options: PictureWorkerOptions = DEFAULT_WORKER_OPTIONS,
  ) {}

  get done(): Readonly<Record<JobOutcome, number>> {
    return this.counts;
  }

  async run(signal: AbortSignal): Promise<void> {
    await this.queue.ensureGroup();
    let lastClaim = 0;
    let lastReport = Date.now();
    let cpu = process.cpuUsage();
    let madeAtReport = 0;
    while (!signal.aborted) {
      await this.queue.promoteDue(Date.now());
      let jobs: QueuedPicture[] = [];
      if (Date.now() - lastClaim >= this.options.claimIdleMs / 2) {
        lastClaim = Date.now();
        const stale = await this.queue.claimStale(this.options.consumer, this.options.claimIdleMs, this.options.concurrency);
        for (const job of stale) {
          if (job.deliveries < this.options.maxDeliveries) jobs.push(job);
          else {
            await this.fail(job, `the picture worker stopped ${job.deliveries} times while making it (out of memory?)`);
            this.counts.failed++;
          }
        }
      }
      if (!jobs.length) jobs = await this.queue.read(this.options.consumer, this.options.concurrency, this.options.blockMs);
      await Promise.all(jobs.map((job) => this.handleLogged(job)));
      if (Date.now() - lastReport >= 10_000 && (jobs.length || this.counts.made > madeAtReport)) {
        const used = process.cpuUsage(cpu);
        const cpuSeconds = (used.user + used.system) / 1e6;
        this.log({
          level: 'info',
          msg: 'pictures',
          ...this.counts,
          ...(await this.queue.backlog()),
          pictures_per_cpu_second: cpuSeconds > 0 ? Number(((this.counts.made - madeAtReport) / cpuSeconds).toFixed(1)) : null,
        });
        cpu = process.cpuUsage();
        madeAtReport = this.counts.made;
        lastReport = Date.now();
      }
    }
  }

  private async handleLogged(job: QueuedPicture): Promise<void> {
    try {
      this.counts[await this.handle(job)]++;
    } catch (error) {
      // The media store failed (not the source's fault): the job stays taken and is taken over after claimIdleMs.
      this.log({ level: 'warn', msg: 'a picture could not be stored; it will be tried again', url: job.job.source.url, error: (error as Error).message });
    }
  }

  async handle(queued: QueuedPicture): Promise<JobOutcome> {
    const { source, creatives } = queued.job;
    const known = await this.catalogue.get(source);
    if (known?.state === 'done') {
      await this.queue.announce(creatives, known.media.phash);
      await this.queue.finish(queued.id);
      return 'known';
    }
    // Refused for good, or a second job for a source whose retry is scheduled already: nothing to do now.
    if (known?.state === 'failed' || (known?.state === 'retrying' && queued.attempts < known.attempts)) {
      await this.queue.finish(queued.id);
      return 'known';
    }
    const made = await this.maker.make(source).catch((error: unknown) => {
      if (error instanceof MediaStoreError) throw error;
      return { refused: error instanceof Error ? error.message : String(error) };
    });
    if ('media' in made) {
      await this.catalogue.put(source, { state: 'done', media: made.media });
      await this.queue.announce(creatives, made.media.phash);
      await this.queue.finish(queued.id);
      this.log({ level: 'debug', msg: 'made a picture', url: source.url, key: made.media.key });
      return 'made';
    }
    const attempts = queued.attempts + 1;
    if ('retry' in made && attempts < this.options.maxAttempts) {
      const at = Date.now() + this.options.firstBackoffMs * 4 ** (attempts - 1);
      await this.catalogue.put(source, { state: 'retrying', reason: made.refused, attempts, retry_at: new Date(at).toISOString() });
      await this.queue.retryAt(queued, attempts, at);
      this.log({ level: 'warn', msg: 'a picture failed; trying again later', url: source.url, reason: made.refused, attempts, retry_at: new Date(at).toISOString() });
      return 'retrying';
    }
    await this.fail({ ...queued, attempts }, made.refused);
    return 'failed';
  }

  private async fail(queued: QueuedPicture, reason: string): Promise<void> {
    await this.catalogue.put(queued.job.source, { state: 'failed', reason, attempts: queued.attempts });
    await this.queue.finish(queued.id);
    this.log({ level: 'warn', msg: 'a picture is refused for good', url: queued.job.source.url, reason });
  }
}
