/**
 * Entry of one read-only query worker (bundled as dist/apps/query-api/sqlite-worker.js).
 * node:sqlite is synchronous: running reads here keeps the event loop of the app free.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteReader } from './sqlite-reader';
import type { WorkerReply, WorkerRequest } from './worker-pool';

const reader = new SqliteReader((workerData as { file: string }).file);
try {
  reader.warmUp();
} catch {
  // An empty or half-written store: the first request reports it.
}

parentPort?.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const method = reader[request.method] as (...args: unknown[]) => unknown;
    reply = { id: request.id, ok: true, result: method.apply(reader, request.args) };
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
