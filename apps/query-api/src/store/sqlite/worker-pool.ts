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
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * A small pool of read-only SQLite workers. Each request goes to the worker with the fewest
 * requests in flight; a worker that dies fails its in-flight requests and is replaced.
 */
export class WorkerPool {
  private readonly logger = new Logger(WorkerPool.name);
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly script: string,
    private readonly file: string,
    size: number,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Runs `method` of the reader in a worker; the reply is what that method returned there. */
  call<M extends ReaderMethod>(method: M, args: Parameters<SqliteReader[M]>): Promise<ReturnType<SqliteReader[M]>> {
    if (this.closed) return Promise.reject(new Error('the query worker pool is closed'));
    const slot = this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.nextId++;
    return new Promise<ReturnType<SqliteReader[M]>>((resolve, reject) => {
      slot.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      slot.worker.postMessage({ id, method, args } satisfies WorkerRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(this.script, { workerData: { file: this.file } });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (reply: WorkerReply) => {
      const pending = slot.pending.get(reply.id);
      if (!pending) return;
      slot.pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new Error(reply.error));
    });
    worker.on('error', (error) => this.logger.error(`query worker failed: ${error.message}`));
    worker.on('exit', (code) => {
      for (const p of slot.pending.values()) p.reject(new Error(`query worker exited with code ${code}`));
      slot.pending.clear();
      if (this.closed) return;
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots[index] = this.spawn();
    });
    return slot;
  }
}
