import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import type { AdRecord, ApplyResult, LiveWriter } from '../ad-store.port';

export type WriterRequest = { id: number; method: 'apply'; batch: readonly AdRecord[] } | { id: number; method: 'close' };
export type WriterReply = { id: number; ok: true; result: ApplyResult | null } | { id: number; ok: false; error: string };

/** The readers of the same file in this process (SqliteStore): they move to a batch when asked. */
export interface CatchingUpReaders {
  catchUp(): Promise<void>;
}

export interface SqliteLiveWriterOptions {
  /** The bundled writer entry; defaults to sqlite-writer-worker.js next to the running bundle. */
  script?: string;
  /**
   * Moved to each batch that changed something before apply resolves: off the query path, and before the next batch
   * is written (on SQLite a batch written while they move would keep the write-ahead log from starting over,
   * WorkerPool.catchUp). A failure is logged and leaves each reader to move on its next read.
   */
  readers?: CatchingUpReaders;
}

/**
 * The serving process's writer of its SQLite store: a SqliteWriter in a thread of its own (sqlite-writer-worker.ts),
 * so live batches never block request handling. Batches are applied one after another, in the order given.
 */
export class SqliteLiveWriter implements LiveWriter {
  private readonly logger = new Logger('SqliteLiveWriter');
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: ApplyResult | null) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited: Error | null = null;

  constructor(
    file: string,
    private readonly options: SqliteLiveWriterOptions = {},
  ) {
    const candidates = options.script
      ? [options.script]
      : [join(__dirname, 'sqlite-writer-worker.js'), join(dirname(process.argv[1] ?? '.'), 'sqlite-writer-worker.js')];
    const script = candidates.find((c) => existsSync(c));
    if (!script) throw new Error(`the live writer script is missing (${candidates.join(', ')}): build query-api first`);
    this.worker = new Worker(script, { workerData: { file } });
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
    const result = (await this.send({ id: this.nextId++, method: 'apply', batch })) as ApplyResult;
    if (this.options.readers && result.added + result.replaced > 0) {
      await this.options.readers
        .catchUp()
        .catch((error: unknown) => this.logger.warn({ msg: 'readers could not catch up with a live batch', error: (error as Error).message }));
    }
    return result;
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
