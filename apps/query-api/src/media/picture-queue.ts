import { closeRedis, createRedis, type Redis } from '@adintel/redis';
import type { PictureJob } from './picture-job';

/** One job as a worker holds it: its entry in the queue, how many times it was tried before, how many deliveries. */
export interface QueuedPicture {
  readonly id: string;
  readonly job: PictureJob;
  /** Failed attempts before this one (a retried job comes back with its count). */
  readonly attempts: number;
}

type StreamEntry = [id: string, fields: string[] | null];

/** The workers' consumer group: every worker shares it, so each job goes to one of them. */
export const PICTURE_GROUP = 'picture-workers';

/*
 * Moves the retries that are due back to the queue, each exactly once (ZREM then XADD in one script, so two workers
 * promoting at once move a retry once). KEYS: retry set, queue. ARGV: now (ms), most to move.
 */
const PROMOTE_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, item in ipairs(due) do
  redis.call('ZREM', KEYS[1], item)
  local sep = string.find(item, ' ', 1, true)
  redis.call('XADD', KEYS[2], '*', 'attempts', string.sub(item, 1, sep - 1), 'job', string.sub(item, sep + 1))
end
return #due`;

const toQueued = ([id, fields]: StreamEntry): QueuedPicture | null => {
  if (!fields) return null;
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] as string] = fields[i + 1] as string;
  if (!record['job']) return null;
  return { id, job: JSON.parse(record['job']) as PictureJob, attempts: Number(record['attempts'] ?? 0) };
};

/**
 * The durable queue of pictures to make (docs/media.md, "Pictures off the ingest path"), in the Redis of the live
 * stream, under its name (so the ACL that lets query-api use `ingest:*` covers it):
 * - `<stream>:pictures`, a stream read by the workers' group: a job stays pending in the group until a worker has
 *   made the picture and recorded it, so a worker that dies (a decoder crash, an OOM kill) leaves it for another;
 * - `<stream>:pictures:retry`, a sorted set of jobs to try again after a backoff (score: when);
 * - `<stream>:pictures:done`, the creatives' look-alike hashes of pictures made, read by every query-api replica.
 * Queries only; the worker (picture-worker.ts) decides.
 */
export class PictureQueue {
  readonly queue: string;
  readonly retries: string;
  readonly done: string;

  private constructor(
    private readonly redis: Redis,
    stream: string,
  ) {
    this.queue = `${stream}:pictures`;
    this.retries = `${stream}:pictures:retry`;
    this.done = `${stream}:pictures:done`;
  }

  static connect(url: string, stream: string, blocking = false): PictureQueue {
    return new PictureQueue(createRedis({ url, name: 'pictures', blocking }), stream);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }

  disconnect(): void {
    this.redis.disconnect();
  }

  async enqueue(jobs: readonly PictureJob[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += 500) {
      const pipeline = this.redis.pipeline();
      for (const job of jobs.slice(i, i + 500)) pipeline.xadd(this.queue, '*', 'attempts', '0', 'job', JSON.stringify(job));
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([error]) => error);
      if (failed) throw failed[0] as Error;
    }
  }

  async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.queue, PICTURE_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error as Error).message.includes('BUSYGROUP')) throw error;
    }
  }

  /** New jobs for this worker; waits up to `blockMs`. */
  async read(consumer: string, count: number, blockMs: number): Promise<QueuedPicture[]> {
    const reply = (await this.redis.xreadgroup('GROUP', PICTURE_GROUP, consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.queue, '>')) as
      | [string, StreamEntry[]][]
      | null;
    return (reply?.[0]?.[1] ?? []).map(toQueued).filter((job): job is QueuedPicture => job !== null);
  }

  /**
   * Jobs another worker took at least `minIdleMs` ago and never finished (it died on them), now this worker's, each
   * with how many times the group delivered it (the dead worker's tries count).
   */
  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<(QueuedPicture & { deliveries: number })[]> {
    const [, entries] = (await this.redis.xautoclaim(this.queue, PICTURE_GROUP, consumer, minIdleMs, '0-0', 'COUNT', count)) as [string, StreamEntry[]];
    const claimed: (QueuedPicture & { deliveries: number })[] = [];
    for (const entry of entries) {
      const queued = toQueued(entry);
      if (!queued) {
        await this.finish(entry[0]);
        continue;
      }
      const [row] = (await this.redis.xpending(this.queue, PICTURE_GROUP, entry[0], entry[0], 1)) as [string, string, number, number][];
      claimed.push({ ...queued, deliveries: Number(row?.[3] ?? 1) });
    }
    return claimed;
  }

  /** The job is done (made, or refused for good): it leaves the queue. */
  async finish(id: string): Promise<void> {
    await this.redis.multi().xack(this.queue, PICTURE_GROUP, id).xdel(this.queue, id).exec();
  }

  /** The job failed and is tried again at `at` (ms since the epoch), with its count of failed attempts. */
  async retryAt(queued: QueuedPicture, attempts: number, at: number): Promise<void> {
    await this.redis
      .multi()
      .zadd(this.retries, at, `${attempts} ${JSON.stringify(queued.job)}`)
      .xack(this.queue, PICTURE_GROUP, queued.id)
      .xdel(this.queue, queued.id)
      .exec();
  }

  /** Moves the retries due by `now` back to the queue; returns how many. */
  async promoteDue(now: number, most = 100): Promise<number> {
    return Number(await this.redis.eval(PROMOTE_SCRIPT, 2, this.retries, this.queue, now, most));
  }

  /** A creative's first picture was made: its look-alike hash, for the replicas' look-alike index. */
  async announce(creatives: readonly string[], phash: string): Promise<void> {
    if (!creatives.length) return;
    const pipeline = this.redis.pipeline();
    for (const creative of creatives) pipeline.xadd(this.done, '*', 'creative', creative, 'phash', phash);
    await pipeline.exec();
  }

  /** Hashes announced after the entry `after` ('0-0': from the start), at most `count`, and the last entry read. */
  async announced(after: string, count: number): Promise<{ hashes: { id: string; phash: string }[]; last: string }> {
    const entries = (await this.redis.xrange(this.done, `(${after}`, '+', 'COUNT', count)) as StreamEntry[];
    const hashes = entries.flatMap(([, fields]) => {
      const creative = fields?.[fields.indexOf('creative') + 1];
      const phash = fields?.[fields.indexOf('phash') + 1];
      return creative && phash ? [{ id: creative, phash }] : [];
    });
    return { hashes, last: entries.at(-1)?.[0] ?? after };
  }

  /** Jobs waiting (in the queue, taken by a worker, or waiting for a retry). */
  async backlog(): Promise<{ queued: number; retrying: number }> {
    const [queued, retrying] = await Promise.all([this.redis.xlen(this.queue), this.redis.zcard(this.retries)]);
    return { queued, retrying };
  }
}
