import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import type { ReaderMethod, SqliteReader } from './sqlite-reader';

export interface WorkerRequest {
  id: number;
  method: ReaderMethod;
  args: unknown[];
}

export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** A scan of the columns (see SCANS). */
  scan: boolean;
}

/**
 * Reads that walk every column position (tens of milliseconds at 1M ads). With two workers or more they run on the
 * first worker only, and lookups avoid a worker with a scan in flight: a search never queues behind a trend.
 */
const SCANS: ReadonlySet<ReaderMethod> = new Set<ReaderMethod>(['trends', 'breakdown']);

/** The query workers' thread names: this, then the slot's number from 1. */
const QUERY_THREAD_NAME = 'query-worker';

interface Slot {
  worker: Worker;
  /** Sent or queued, not yet answered. */
  pending: Map<number, Pending>;
  /** Calls made in this tick, posted together when it ends. */
  batch: WorkerRequest[];
}

/**
 * A small pool of read-only SQLite workers. Each request goes to the worker with the fewest requests in
 * flight; a worker that dies fails its in-flight requests and is replaced.
 *
 * Scans of the columns (trends, breakdowns) keep to the first worker, so lookups on the others never wait for one.
 *
 * Calls made in the same tick travel as one message each way: waking a sleeping thread costs more than a
 * typical query here (a postMessage round trip ~0.12 ms against ~0.1 ms for a search page, measured on this
 * project's machine, README "Performance"), and a search sends its page and its total in the same tick.
 */
export class WorkerPool {
  private readonly logger = new Logger(WorkerPool.name);
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  /** `follow`: workers take the live writer's published columns (false: each derives its own; the benchmark's baseline). */
  constructor(
    private readonly script: string,
    private readonly file: string,
    size: number,
    private readonly follow = true,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn(i));
  }

  /** Runs `method` of the reader in a worker; the reply is what that method returned there. */
  call<M extends ReaderMethod>(method: M, args: Parameters<SqliteReader[M]>): Promise<ReturnType<SqliteReader[M]>> {
    if (this.closed) return Promise.reject(new Error('the query worker pool is closed'));
    const scan = SCANS.has(method);
    return this.send(this.pick(scan), method, args, scan);
  }

  private send<M extends ReaderMethod>(slot: Slot, method: M, args: Parameters<SqliteReader[M]>, scan: boolean): Promise<ReturnType<SqliteReader[M]>> {
    const id = this.nextId++;
    return new Promise<ReturnType<SqliteReader[M]>>((resolve, reject) => {
      slot.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, scan });
      if (slot.batch.push({ id, method, args }) === 1) queueMicrotask(() => this.post(slot));
    });
  }

  /** CPU time each worker thread has used so far (µs), for the benchmarks. */
  cpuUsage(): Promise<NodeJS.CpuUsage[]> {
    return Promise.all(this.slots.map((slot) => slot.worker.cpuUsage()));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  /**
   * A scan goes to the first worker (the others stay free for lookups). A lookup goes to the least busy worker among
   * those with no scan in flight (any worker when none is), unless one with a batch open in this tick is at most one
   * request busier: then the call joins that batch (a search's page and total wake one worker, not two), while a
   * burst still spreads out.
   */
  private pick(scan: boolean): Slot {
    const first = this.slots[0] as Slot;
    if (this.slots.length === 1) return first;
    if (scan) return first;
    const busy = (slot: Slot) => [...slot.pending.values()].some((p) => p.scan);
    const free = this.slots.filter((slot) => !busy(slot));
    const candidates = free.length ? free : this.slots;
    let least = candidates[0] as Slot;
    let open: Slot | undefined;
    for (const slot of candidates) {
      if (slot.pending.size < least.pending.size) least = slot;
      if (slot.batch.length > 0 && (!open || slot.pending.size < open.pending.size)) open = slot;
    }
    return open && open.pending.size <= least.pending.size + 1 ? open : least;
  }

  private post(slot: Slot): void {
    const batch = slot.batch;
    slot.batch = [];
    if (batch.length > 0) slot.worker.postMessage(batch);
  }

  /** The worker of slot `index` (0: the one that also runs the scans). */
  private spawn(index: number): Slot {
    // Named by slot, as `top -H` and /proc show it.
    const name = `${QUERY_THREAD_NAME}-${index + 1}`;
    const worker = new Worker(this.script, { name, workerData: { file: this.file, follow: this.follow } });
    const slot: Slot = { worker, pending: new Map(), batch: [] };
    worker.on('message', (replies: WorkerReply[]) => {
      for (const reply of replies) {
        const pending = slot.pending.get(reply.id);
        if (!pending) continue;
        slot.pending.delete(reply.id);
        if (reply.ok) pending.resolve(reply.result);
        else pending.reject(new Error(reply.error));
      }
    });
    worker.on('error', (error) => this.logger.error(`query worker failed: ${error.message}`));
    worker.on('exit', (code) => {
      for (const p of slot.pending.values()) p.reject(new Error(`query worker exited with code ${code}`));
      slot.pending.clear();
      slot.batch = [];
      if (this.closed) return;
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots[index] = this.spawn(index);
    });
    return slot;
  }
}
