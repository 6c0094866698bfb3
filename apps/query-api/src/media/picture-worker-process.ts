import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AppConfig } from '../config';
import { liveSettingsFrom } from '../live/live-settings';
import { createMediaFetcher } from './media-fetch';
import { MediaLibrary } from './media-library';
import { createMediaStore } from './media-store-factory';
import { PictureCatalogue } from './picture-catalogue';
import { PictureMaker } from './picture-maker';
import { PictureQueue } from './picture-queue';
import { DEFAULT_WORKER_OPTIONS, PictureWorker } from './picture-worker';

/** One JSON log line on stdout, as the apps write theirs. */
const log = (fields: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), context: 'PictureWorker', ...fields })}\n`);

/**
 * `cli.js media-worker`: a picture worker as a process of its own (docs/media.md, "Pictures off the ingest path"), so
 * rendering and decoding have their own CPU and memory, apart from the queries: a decoder that runs out of memory takes
 * this process down, not query-api, and its job goes to the next worker. Stops on SIGTERM or SIGINT after the jobs in
 * hand.
 */
export async function runPictureWorker(config: AppConfig): Promise<number> {
  const live = liveSettingsFrom(config);
  const files = createMediaStore(config);
  const fetcher = createMediaFetcher(config);
  const queue = PictureQueue.connect(live.url, live.stream, true);
  const worker = new PictureWorker(queue, new PictureCatalogue(files), new PictureMaker(new MediaLibrary(files), null, fetcher, join(config.DATA_DIR, 'spool')), log, DEFAULT_WORKER_OPTIONS);
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
  const health = process.env['PORT'] ? serveHealth(Number(process.env['PORT']), () => Promise.all([queue.backlog(), files.ping()])) : null;
  log({ level: 'info', msg: 'picture worker started', queue: queue.queue, fetching: fetcher !== null, concurrency: DEFAULT_WORKER_OPTIONS.concurrency });
  try {
    await worker.run(stop.signal);
    return 0;
  } finally {
    log({ level: 'info', msg: 'picture worker stopped', ...worker.done });
    health?.close();
    await Promise.all([queue.close(), files.close(), fetcher?.close()]);
  }
}

/**
 * With PORT set (in a cluster), `/healthz` (the process answers) and `/readyz` (its Redis and media store answer), the
 * probes every Deployment has (k8s/base/pod-defaults.yaml).
 */
function serveHealth(port: number, ready: () => Promise<unknown>): Server {
  return createServer((req, res) => {
    if (req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (req.url !== '/readyz') return void res.writeHead(404).end();
    ready().then(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}'),
      (error: unknown) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'unavailable', reason: (error as Error).message })),
    );
  }).listen(port, process.env['HOST'] ?? '127.0.0.1');
}
