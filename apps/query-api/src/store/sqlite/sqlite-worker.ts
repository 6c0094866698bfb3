/**
 * Entry of one read-only query worker (bundled as dist/apps/query-api/sqlite-worker.js).
 * node:sqlite is synchronous: running reads here keeps the event loop of the app free.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteReader } from './sqlite-reader';
import type { WorkerReply, WorkerRequest } from './worker-pool';

const { file, follow } = workerData as { file: string; follow?: boolean };
const reader = new SqliteReader(file, { follow });
try {
  reader.warmUp();
} catch {
  // An empty or half-written store: the first request reports it.
}

/** A batch of calls made in one tick of the app (see WorkerPool): answered together, in order. */
parentPort?.on('message', (batch: WorkerRequest[]) => {
  parentPort?.postMessage(batch.map(run));
});

function run(request: WorkerRequest): WorkerReply {
  try {
    const method = reader[request.method] as (...args: unknown[]) => unknown;
    return { id: request.id, ok: true, result: method.apply(reader, request.args) };
  } catch (error) {
    return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
