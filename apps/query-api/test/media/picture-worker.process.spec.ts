/**
 * The picture worker as the process it runs as (`cli.js media-worker`, the heap cap of its Deployment), fed hostile
 * media from a real local HTTP server: a pixel bomb (a 300 KB PNG that decodes to 40000x40000) and a 150 MB video body.
 * The fetch guard reaches loopback only through MEDIA_FETCH_ALLOW_LOOPBACK, which the config refuses in production.
 * The worker must refuse the bomb, store the video, stay up and stay within its memory cap.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createDeflate } from 'node:zlib';
import sharp from 'sharp';
import { startPrivateRedis, waitUntil, WORKSPACE_ROOT, type PrivateRedis } from '@adintel/testing';
import { FilesystemMediaStore } from '../../src/media/filesystem-media-store';
import { PictureCatalogue, type PictureRecord } from '../../src/media/picture-catalogue';
import type { PictureSource } from '../../src/media/picture-job';
import { PictureQueue } from '../../src/media/picture-queue';

const CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');
const MB = 1024 * 1024;
/** k8s/base/picture-worker.yaml: the heap cap (NODE_OPTIONS) and the pod's memory limit. */
const NODE_OPTIONS = '--max-old-space-size=128 --max-semi-space-size=8';
const POD_LIMIT_MB = 512;
const BOMB_SIDE = 40_000;

/** A valid 1-bit greyscale PNG of side x side white pixels: a few hundred KB that decode to side² pixels. */
async function pixelBomb(side: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter method, no interlace
  const row = Buffer.alloc(1 + Math.ceil(side / 8), 0xff);
  row[0] = 0; // filter: none
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((done) => deflate.on('end', done));
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await new Promise((done) => deflate.once('drain', done));
  deflate.end();
  await ended;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', Buffer.concat(parts)), chunk('IEND', Buffer.alloc(0))]);
}

describe('the running picture worker against a pixel bomb and a 150 MB body (real process, Redis, HTTP server)', () => {
  let redis: PrivateRedis;
  let server: Server;
  let base: string;
  let dir: string;
  let worker: ChildProcess | undefined;
  let bomb: Buffer;
  const workerOutput: string[] = [];

  beforeAll(async () => {
    bomb = await pixelBomb(BOMB_SIDE);
    const poster = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#3c3' } }).png().toBuffer();
    const megabyte = Buffer.alloc(MB, 7);
    server = createServer((req, res) => {
      if (req.url === '/bomb.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(bomb);
      if (req.url === '/poster.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(poster);
      const megabytes = Number(/\/(\d+)\.mp4$/.exec(req.url ?? '')?.[1] ?? 0);
      // No Content-Length: only the streamed bound can stop a body past 200 MB.
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.write(Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(12)]));
      let sent = 0;
      const more = () => {
        while (sent < megabytes) {
          sent++;
          if (!res.write(megabyte)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    redis = await startPrivateRedis();
    dir = mkdtempSync(join(tmpdir(), 'query-picture-process-'));
  }, 60_000);
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await new Promise((done) => server.close(done));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const workerEnv = (extra: Record<string, string> = {}) => ({
    PATH: process.env['PATH'] ?? '',
    REDIS_URL: redis.url,
    INGEST_STREAM: 'ingest:hostile',
    DATA_DIR: dir,
    MEDIA_FETCH: 'true',
    MEDIA_FETCH_ALLOW_LOOPBACK: 'true',
    MEDIA_FETCH_TIMEOUT_MS: '60000',
    NODE_OPTIONS,
    LOG_LEVEL: 'warn',
    ...extra,
  });

  it('refuses MEDIA_FETCH_ALLOW_LOOPBACK in production, naming it, before it starts', () => {
    const run = spawnSync(process.execPath, [CLI, 'media-worker'], { env: workerEnv({ NODE_ENV: 'production' }), encoding: 'utf8', timeout: 60_000 });
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/MEDIA_FETCH_ALLOW_LOOPBACK[^\n]*tests only/);
  });

  it('refuses the pixel bomb, stores the 150 MB video and refuses a 210 MB one, staying up within its memory cap', async () => {
    expect(bomb.length).toBeLessThan(MB); // a small file...
    expect((await sharp(bomb, { limitInputPixels: false }).metadata()).width).toBe(BOMB_SIDE); // ...that says 1.6 G pixels
    worker = spawn(process.execPath, [CLI, 'media-worker'], { env: workerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    worker.stdout?.on('data', (line: Buffer) => workerOutput.push(line.toString()));
    worker.stderr?.on('data', (line: Buffer) => workerOutput.push(line.toString()));
    const pid = worker.pid ?? 0;
    const queue = PictureQueue.connect(redis.url, 'ingest:hostile');
    const catalogue = new PictureCatalogue(new FilesystemMediaStore(join(dir, 'media')));
    const video = (url: string): PictureSource => ({ type: 'video', url, poster: `${base}/poster.png`, width: 1080, height: 1920, duration_seconds: 30 });
    const sources: PictureSource[] = [
      { type: 'image', url: `${base}/bomb.png`, width: 1080, height: 1080, duration_seconds: null },
      video(`${base}/150.mp4`),
      video(`${base}/210.mp4`),
    ];
    try {
      await queue.enqueue(sources.map((source, i) => ({ source, creatives: [`cr_hostile_${i}`] })));
      const records: (PictureRecord | null)[] = [];
      await waitUntil(
        async () => {
          records.splice(0, records.length, ...(await Promise.all(sources.map((source) => catalogue.get(source)))));
          return records.every((record) => record !== null && record.state !== 'retrying');
        },
        180_000,
        250,
      );
      const [bombRecord, stored, tooLarge] = records;
      expect(bombRecord).toMatchObject({ state: 'failed', reason: expect.stringMatching(/pixel/i) });
      expect(stored).toMatchObject({ state: 'done', media: { type: 'video', mime: 'video/mp4', bytes: 150 * MB + 24 } });
      expect(tooLarge).toMatchObject({ state: 'failed', reason: expect.stringContaining(`larger than ${200 * MB} bytes`) });
      // Still the same process, still working, and its peak resident memory stayed under the pod's limit.
      expect(worker.exitCode).toBeNull();
      const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Infinity) / 1024;
      process.stdout.write(`picture worker peak RSS ${peakMb.toFixed(0)} MB (pod limit ${POD_LIMIT_MB} Mi)\n`);
      expect(peakMb).toBeLessThan(POD_LIMIT_MB);
      // A whole-body buffer of the 150 MB video (two copies before) would put it far above the worker's own baseline.
      expect(peakMb).toBeLessThan(300);
    } finally {
      await queue.close();
    }
  }, 300_000);
});
