/**
 * Entry of one read-only query worker (bundled as dist/apps/query-api/sqlite-worker.js).
 * node:sqlite is synchronous: running reads here keeps the event loop of the app free.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteReader } from './sqlite-reader';
import type { WorkerReply, WorkerRequest } from './worker-pool';

/**
 * A worker holds its snapshot from read to read and moves to a new batch when the pool says (catchUp). Bounds, for
 * writes no catch-up announced (another process writing the file): a read finding the snapshot older than
 * SNAPSHOT_MAX_AGE_MS takes a new one, and an idle worker lets its snapshot go after IDLE_RELEASE_MS (so the writer's
 * checkpoints never wait long for it).
 */
const SNAPSHOT_MAX_AGE_MS = 5_000;
const IDLE_RELEASE_MS = 1_000;

const reader = new SqliteReader((workerData as { file: string }).file, {}, { maxAgeMs: SNAPSHOT_MAX_AGE_MS });
let idle: NodeJS.Timeout | undefined;
const rest = () => {
  idle = setTimeout(() => reader.release(), IDLE_RELEASE_MS);
  idle.unref();
};
try {
  reader.warmUp();
} catch {
  // An empty or half-written store: the first request reports it.
}
rest();

/** A batch of calls made in one tick of the app (see WorkerPool): answered together, in order. */
parentPort?.on('message', (batch: WorkerRequest[]) => {
  clearTimeout(idle);
  parentPort?.postMessage(batch.map(run));
  rest();
});

function run(request: WorkerRequest): WorkerReply {
  try {
    const method = reader[request.method] as (...args: unknown[]) => unknown;
    return { id: request.id, ok: true, result: method.apply(reader, request.args) };
  } catch (error) {
    return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
