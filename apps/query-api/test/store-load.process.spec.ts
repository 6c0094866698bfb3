import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { QueryMessages } from '@adintel/contracts';
import { startApp, startPrivateRedis, waitUntil, WORKSPACE_ROOT } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';

/**
 * `seed` and offline `ingest` stopped at several points (Ctrl-C's SIGINT, and SIGKILL) by the built CLI, then run
 * again: each time the store is the previous one (or none), never a partial one, and the next run says what it found
 * and ends with every ad and entity record an uninterrupted run gives (store/store-file.ts).
 */
jest.setTimeout(600_000);

const CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');
const ADS = 4_000;
/**
 * The ingested file: the demo generator with another seed, so the first 4,000 ids are re-sightings and the rest new;
 * without media (rendering the demo pictures is the media tests' subject, and minutes of CPU here).
 */
const MORE = 6_000;

type Counts = { ads: number; entities: number; facets: number; finished: boolean };

/** What a store file holds, read as the tests' own SQL (null: no file). */
function counts(dataDir: string): Counts | null {
  const file = join(dataDir, 'ads.sqlite');
  if (!existsSync(file)) return null;
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const n = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
    const generation = db.prepare("SELECT value FROM meta WHERE key = 'generation'").get() as { value: string } | undefined;
    return { ads: n('SELECT count(*) AS n FROM ads'), entities: n('SELECT count(*) AS n FROM entities'), facets: n('SELECT count(*) AS n FROM entity_facets'), finished: !!generation?.value };
  } finally {
    db.close();
  }
}

function cli(dataDir: string, args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  return { status: result.status, stderr: result.stderr };
}

/** Starts the CLI, waits until `when(stderr)` holds, then sends `signal`; resolves once the process is gone. */
async function stopMidway(dataDir: string, args: string[], when: (stderr: string) => boolean, signal: NodeJS.Signals): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitUntil(() => when(stderr) || child.exitCode !== null, 300_000, 5);
  child.kill(signal);
  await exited;
  return stderr;
}

const loadingFile = (dataDir: string) => join(dataDir, 'ads.sqlite.loading');
/** The new file (with its write-ahead log) holds some rows already (past its first batches). */
const loadingHolds = (dataDir: string, bytes: number) => () =>
  [loadingFile(dataDir), `${loadingFile(dataDir)}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0) > bytes;

describe('seed and ingest stopped midway leave the previous store or none, and the next run finishes', () => {
  const dirs: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-load-'));
    dirs.push(dir);
    return dir;
  };
  let full: Counts;
  let withMore: Counts;
  let moreFile: string;

  beforeAll(() => {
    // What an uninterrupted seed, and an uninterrupted ingest on top of it, give.
    const reference = newDir();
    expect(cli(reference, ['seed', '--count', String(ADS), '--pictures', '0']).status).toBe(0);
    full = counts(reference) as Counts;
    expect(full).toMatchObject({ ads: ADS, finished: true });
    expect(full.entities).toBeGreaterThan(0);
    moreFile = join(reference, 'more.ndjson');
    expect(cli(reference, ['generate', '--count', String(MORE), '--seed', '7', '--out', moreFile]).status).toBe(0);
    const lines = readFileSync(moreFile, 'utf8').trimEnd().split('\n');
    writeFileSync(moreFile, lines.map((line) => `${JSON.stringify({ ...(JSON.parse(line) as object), media: [] })}\n`).join(''));
    expect(cli(reference, ['ingest', moreFile]).status).toBe(0);
    withMore = counts(reference) as Counts;
    expect(withMore.ads).toBe(MORE);
  });
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  const seed = ['seed', '--count', String(ADS), '--pictures', '0'];
  const stops: [string, NodeJS.Signals, (dataDir: string) => (stderr: string) => boolean][] = [
    ['as the new file appears', 'SIGINT', (dir) => () => existsSync(loadingFile(dir))],
    ['mid-way through the rows', 'SIGKILL', (dir) => loadingHolds(dir, 4_000_000)],
    ['after the rows, while indexes and rollups are built', 'SIGINT', () => (stderr) => stderr.includes('indexes and rollups')],
    ['once finished, just before the switch', 'SIGKILL', () => (stderr) => stderr.includes('ingested')],
  ];

  it.each(stops)('a first run stopped %s (%s) leaves no store; the next seed says so and loads every ad', async (_, signal, when) => {
    const dir = newDir();
    await stopMidway(dir, seed, when(dir), signal);
    const after = counts(dir);
    // Either nothing, or (stopped after the switch) the whole store: never a part.
    if (after) expect(after).toEqual(full);
    const leftover = existsSync(loadingFile(dir));
    const again = cli(dir, seed);
    expect(again.status).toBe(0);
    if (leftover) expect(again.stderr).toMatch(/found .*ads\.sqlite\.loading, left by a seed or ingest that was stopped before it finished: removing it/);
    expect(again.stderr).toMatch(after ? /already holds 4000 ads: not seeding/ : /switched .*ads\.sqlite to the finished load/);
    expect(counts(dir)).toEqual(full);
    expect(existsSync(loadingFile(dir))).toBe(false);
  });

  it.each(stops.filter((_, i) => i === 1 || i === 3))('a seed --force stopped %s (%s) keeps the previous store', async (_, signal, when) => {
    const dir = newDir();
    expect(cli(dir, ['seed', '--count', '1000', '--pictures', '0']).status).toBe(0);
    const previous = counts(dir);
    await stopMidway(dir, [...seed, '--force'], when(dir), signal);
    const after = counts(dir);
    expect([JSON.stringify(previous), JSON.stringify(full)]).toContain(JSON.stringify(after));
    if (JSON.stringify(after) === JSON.stringify(previous)) {
      const again = cli(dir, [...seed, '--force']);
      expect(again.stderr).toMatch(/found .*ads\.sqlite\.loading.*left by a seed or ingest that was stopped.*removing it/);
      expect(counts(dir)).toEqual(full);
    }
  });

  it('an ingest stopped mid-way (SIGKILL, then SIGINT) keeps the store it adds to; run again, it adds everything', async () => {
    const dir = newDir();
    expect(cli(dir, seed).status).toBe(0);
    for (const signal of ['SIGKILL', 'SIGINT'] as const) {
      await stopMidway(dir, ['ingest', moreFile], loadingHolds(dir, 1_000_000), signal);
      expect(counts(dir)).toEqual(full);
    }
    const again = cli(dir, ['ingest', moreFile]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/found .*ads\.sqlite\.loading.*removing it/);
    expect(counts(dir)).toEqual(withMore);
  });

  it('a store an earlier version left unfinished is named and replaced by the next seed', () => {
    const dir = newDir();
    expect(cli(dir, ['seed', '--count', '1000', '--pictures', '0']).status).toBe(0);
    const db = new DatabaseSync(join(dir, 'ads.sqlite'));
    db.exec("DELETE FROM meta WHERE key = 'generation'"); // as a load stopped before its finish() left it
    db.close();
    const again = cli(dir, seed);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/holds 1000 ads that no load finished .*: replacing it/);
    expect(counts(dir)).toEqual(full);
  });

  it('the service comes up on a store whose first seed was stopped and run again, with every ad', async () => {
    const dir = newDir();
    await stopMidway(dir, seed, loadingHolds(dir, 4_000_000), 'SIGKILL');
    expect(cli(dir, seed).status).toBe(0);
    const redis = await startPrivateRedis();
    const app = await startApp({ name: 'query-api', env: { DATA_DIR: dir, REDIS_URL: redis.url, QUERY_WORKERS: '1', LOG_LEVEL: 'warn' }, readyPath: '/readyz' });
    const client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 10_000 });
    try {
      const page = await client.send(QueryMessages.searchAds, { limit: 1 });
      expect(page.pagination).toMatchObject({ total: ADS, total_estimated: false });
    } finally {
      await client.close();
      await app.stop();
      await redis.stop();
    }
  });
});
