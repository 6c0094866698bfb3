/**
 * `ingest <file> --render later` by the built CLI, on a real Redis: the ads are loaded with their demo pictures
 * pending, and each distinct picture is one job on the picture workers' queue; nothing is rendered by the load itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startPrivateRedis, WORKSPACE_ROOT, type PrivateRedis } from '@adintel/testing';
import { PictureQueue } from '../../src/media/picture-queue';
import { sourceKeyOf } from '../../src/media/picture-job';
import type { RecordMedia } from '../../src/store/record-media';

const CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');
const ADS = 300;
const STREAM = 'ingest:render-later';

describe('ingest --render later leaves the pictures to the picture workers (built CLI, real Redis)', () => {
  let redis: PrivateRedis;
  let dir: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    dir = mkdtempSync(join(tmpdir(), 'query-render-later-'));
  }, 60_000);
  afterAll(async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATA_DIR: dir, REDIS_URL: redis.url, INGEST_STREAM: STREAM, LOG_LEVEL: 'warn' }, encoding: 'utf8' });

  it('refuses a --render that is neither now nor later, naming it', () => {
    const run = cli(['ingest', join(dir, 'none.ndjson'), '--render', 'soon']);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('--render must be now or later');
  });

  it('loads every ad with its demo pictures pending and queues one job per distinct picture', async () => {
    const file = join(dir, 'demo.ndjson');
    expect(cli(['generate', '--count', String(ADS), '--out', file]).status).toBe(0);
    const media = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .flatMap((line) => (JSON.parse(line) as { media: RecordMedia[] }).media);
    const demo = new Set(media.filter((entry) => entry.url.startsWith('demo:')).map(sourceKeyOf));
    expect(demo.size).toBeGreaterThan(50);

    const run = cli(['ingest', file, '--render', 'later']);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`queued ${demo.size} pictures for the picture workers`);

    const queue = PictureQueue.connect(redis.url, STREAM);
    try {
      expect(await queue.backlog()).toEqual({ queued: demo.size, retrying: 0 });
    } finally {
      await queue.close();
    }
    const db = new DatabaseSync(join(dir, 'ads.sqlite'), { readOnly: true });
    try {
      const stored = (db.prepare('SELECT doc FROM ad_docs').all() as { doc: string }[]).flatMap((row) => (JSON.parse(row.doc) as { media: RecordMedia[] }).media);
      expect(stored).toHaveLength(media.length);
      const demoStored = stored.filter((entry) => entry.url.startsWith('demo:'));
      expect(demoStored.length).toBeGreaterThan(0);
      expect(demoStored.every((entry) => entry.pending === true && entry.stored === undefined)).toBe(true);
    } finally {
      db.close();
    }
    // Not one picture was made by the load.
    expect(readdirSync(dir)).not.toContain('media');
  }, 120_000);
});
