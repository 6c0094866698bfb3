import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AdRecord, ApplyResult, LiveWriter } from '../ad-store.port';

export type WriterRequest = { id: number; method: 'apply'; batch: readonly AdRecord[] } | { id: number; method: 'close' };
export type WriterReply = { id: number; ok: true; result: ApplyResult | null } | { id: number; ok: false; error: string };

export interface SqliteLiveWriterOptions {
  /** The bundled writer entry; defaults to sqlite-writer-worker.js next to the running bundle. */
  script?: string;
}

/** The writer thread's name (what `top -H` and /proc/<pid>/task/<tid>/comm show). */
const WRITER_THREAD_NAME = 'live-writer';

/**
 * The serving process's writer of its SQLite store: a SqliteWriter in a thread of its own (sqlite-writer-worker.ts),
 * so live batches never block request handling. Batches are applied one after another, in the order given. The query
 * workers of the process take the columns it publishes with each batch (shared-columns.ts): nothing to wait for.
 */
export class SqliteLiveWriter implements LiveWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: ApplyResult | null) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited: Error | null = null;

  constructor(
    file: string,
    options: SqliteLiveWriterOptions = {},
  ) {
    const candidates = options.script
      ? [options.script]
      : [join(__dirname, 'sqlite-writer-worker.js'), join(dirname(process.argv[1] ?? '.'), 'sqlite-writer-worker.js')];
    const script = candidates.find((c) => existsSync(c));
    if (!script) throw new Error(`the live writer script is missing (${candidates.join(', ')}): build query-api first`);
    this.worker = new Worker(script, { name: WRITER_THREAD_NAME, workerData: { file } });
    this.worker.on('message', (reply: WriterReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) waiting?.resolve(reply.result);
      else waiting?.reject(new Error(reply.error));
    });
    this.worker.on('exit', (code) => {
      this.exited = new Error(`the live writer thread exited with code ${code}`);
      for (const waiting of this.pending.values()) waiting.reject(this.exited);
      this.pending.clear();
    });
  }

  async apply(batch: readonly AdRecord[]): Promise<ApplyResult> {
    return (await this.send({ id: this.nextId++, method: 'apply', batch })) as ApplyResult;
  }

  /** CPU time the writer's thread has used so far (µs), for the benchmarks. */
  cpuUsage(): Promise<NodeJS.CpuUsage> {
    return this.worker.cpuUsage();
  }

  /** Stores the columns (see SqliteWriter.close) and ends the thread. */
  async close(): Promise<void> {
    if (this.exited) return;
    await this.send({ id: this.nextId++, method: 'close' });
    await this.worker.terminate();
  }

  private send(request: WriterRequest): Promise<ApplyResult | null> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }
}
