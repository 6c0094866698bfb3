import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryMessages } from '@adintel/contracts';
import { createRedis, type Redis } from '@adintel/redis';
import { freePort, startApp, startPrivateRedis, waitUntil, WORKSPACE_ROOT, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';
import { MAX_DELIVERIES } from '../../src/live/ingest-stream.repository';

jest.setTimeout(240_000);

const STREAM = 'ingest:ads';
const GROUP = 'query-api:poison-test';
const CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');

/**
 * A line the process dies on, with real processes: query-api (built), a private redis-server, ioredis as producer.
 * The line brings 50 new demo pictures to render (about 2 s of work), and the process is SIGKILLed while it renders
 * them, each time, as the kernel's OOM killer kills a process that a picture or a video has blown up (security
 * finding 33#1). Before, the batch was re-delivered at every start, for ever; now the fourth start parks the line with its
 * reason, and the lines after it are applied.
 */
describe('a line that kills the live door', () => {
  let redis: PrivateRedis;
  let producer: Redis;
  let app: AppProcess | undefined;
  let child: ChildProcess | undefined;
  let dataDir: string;
  let env: Record<string, string>;
  let base: Record<string, unknown>;

  // /healthz: an empty store (no seed) is not ready until it holds data; the test needs the live door only.
  const start = () => startApp({ name: 'query-api', env, readyPath: '/healthz' });
  const pendingDeliveries = async (): Promise<number[]> =>
    ((await producer.xpending(STREAM, GROUP, '-', '+', 10).catch(() => [])) as [string, string, number, number][]).map(([, , , deliveries]) => deliveries);
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'query-api-poison-'));
    redis = await startPrivateRedis();
    env = { DATA_DIR: join(dataDir, 'query'), REDIS_URL: redis.url, QUERY_WORKERS: '1', LOG_LEVEL: 'warn', INGEST_GROUP: GROUP };
    const demoFile = join(dataDir, 'demo.ndjson');
    expect(cli(['generate', '--out', demoFile, '--count', '1']).status).toBe(0);
    base = JSON.parse(readFileSync(demoFile, 'utf8').trim()) as Record<string, unknown>;
    producer = createRedis({ url: redis.url, name: 'test-producer' });
  });

  afterAll(async () => {
    await app?.stop('SIGKILL');
    child?.kill('SIGKILL');
    producer?.disconnect();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it(`parks it after ${MAX_DELIVERIES} deliveries with its reason, and applies the line after it`, async () => {
    const picture = (card: number) => ({
      type: 'image',
      url: `demo:cr_poison_${card}/0?brand=Poison&headline=Fifty+pictures+to+render&cta=Shop+now&category=ecommerce_and_retail&shape=portrait`,
      width: 360,
      height: 640,
      duration_seconds: null,
    });
    const poison = { ...base, id: 'poison-1', creative: { id: 'cr_poison', format: 'image', title: 'Poison' }, media: Array.from({ length: 50 }, (_, i) => picture(i)) };
    const poisonEntry = (await producer.xadd(STREAM, '*', 'line', JSON.stringify(poison))) as string;

    for (let delivery = 1; delivery <= MAX_DELIVERIES; delivery++) {
      // Not waiting for readiness: the consumer starts at bootstrap and may take the line before the app answers.
      child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'dist/apps/query-api/main.js')], {
        env: { ...process.env, NODE_ENV: 'test', PORT: String(await freePort()), ...env },
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      // Delivered (pending with the group, its count one up) and not acknowledged: the pictures are being rendered.
      await waitUntil(async () => (await pendingDeliveries())[0] === delivery, 30_000, 10);
      child.kill('SIGKILL');
      await exited;
      expect(await pendingDeliveries()).toEqual([delivery]); // it died with the line in hand
    }

    const afterEntry = (await producer.xadd(STREAM, '*', 'line', JSON.stringify({ ...base, id: 'after-poison' }))) as string;
    app = await start();
    await waitUntil(async () => (await producer.xlen(`${STREAM}:dead`)) === 1, 30_000, 50);
    const letters = cli(['dead-letters']).stdout.trim().split('\n').map((line) => JSON.parse(line) as { entry: string; reason: string; group: string });
    expect(letters).toEqual([
      expect.objectContaining({
        entry: poisonEntry,
        group: GROUP,
        reason: `delivered ${MAX_DELIVERIES} times and never acknowledged (its handler failed or the process died on it each time)`,
      }),
    ]);
    // The line after it is applied and everything is acknowledged; `--resend all` leaves the poison parked.
    const client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 10_000 });
    try {
      await waitUntil(() => client.send(QueryMessages.getAd, { id: 'after-poison' }).then(() => true, () => false), 30_000, 100);
      await expect(client.send(QueryMessages.getAd, { id: 'poison-1' })).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await client.close();
    }
    expect(await pendingDeliveries()).toEqual([]);
    const resend = cli(['dead-letters', '--resend', 'all']);
    expect(resend.stderr).toContain('1 dead letters refused for safety');
    expect(await producer.xlen(`${STREAM}:dead`)).toBe(1);
    expect(letters.map((letter) => letter.entry)).not.toContain(afterEntry);
  });
});
