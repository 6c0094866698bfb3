/**
 * Entry of the live writer's thread (bundled as dist/apps/query-api/sqlite-writer-worker.js): the one writer of this
 * replica's store file. node:sqlite is synchronous, and a live batch takes tens to hundreds of milliseconds: here it
 * does not hold up the app's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteWriter } from './sqlite-writer';
import type { WriterReply, WriterRequest } from './sqlite-live-writer';

const writer = new SqliteWriter((workerData as { file: string }).file);

parentPort?.on('message', (request: WriterRequest) => {
  const run = request.method === 'apply' ? writer.apply(request.batch) : writer.close().then(() => null);
  run.then(
    (result) => parentPort?.postMessage({ id: request.id, ok: true, result } satisfies WriterReply),
    (error: unknown) =>
      parentPort?.postMessage({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies WriterReply),
  );
});
