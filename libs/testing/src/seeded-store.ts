import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';

/** The built query-api CLI (the test targets depend on the build). */
export const QUERY_CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');
const SEEDS_DIR = join(WORKSPACE_ROOT, 'tmp', 'test-seeds');
/** Held (a directory, with the holder's pid in it) by the one process seeding `done`. */
const lock = (done: string) => `${done}.lock`;

/**
 * The DATA_DIR of a store seeded with `ads` demo ads (and their pictures) by this build's CLI, made once and then
 * copied by every suite that wants one (a seed of 3,000 ads costs about 40 s of CPU, most of it the pictures; a copy,
 * well under one). Keyed by the CLI's bytes, so a new build seeds anew; made beside its final place and renamed when
 * complete, so a run stopped midway leaves none. Suites of several jest workers and projects ask at once: one seeds
 * (holding a lock directory with its pid), the others wait for it, or take over when its process is gone.
 */
export async function seededStore(ads: number, env: Record<string, string> = {}): Promise<string> {
  const key = `ads-${ads}-${createHash('sha256').update(readFileSync(QUERY_CLI)).digest('hex').slice(0, 16)}`;
  const done = join(SEEDS_DIR, key);
  mkdirSync(SEEDS_DIR, { recursive: true });
  while (!existsSync(done)) {
    try {
      mkdirSync(lock(done));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(lock(done))) rmSync(lock(done), { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      writeFileSync(join(lock(done), 'pid'), String(process.pid));
      if (!existsSync(done)) await seedInto(done, ads, env);
    } finally {
      rmSync(lock(done), { recursive: true, force: true });
    }
  }
  return done;
}

/** A copy of seededStore(ads) at `dataDir` (a suite's own, changed as it likes). */
export async function copySeededStore(ads: number, dataDir: string, env: Record<string, string> = {}): Promise<void> {
  cpSync(await seededStore(ads, env), dataDir, { recursive: true });
}

async function seedInto(done: string, ads: number, env: Record<string, string>) {
  // Under the lock: an earlier build's store, and loads of this one that a stopped run left, go.
  const prefix = done.slice(0, done.lastIndexOf('-') + 1);
  for (const stale of readdirSync(SEEDS_DIR).map((name) => join(SEEDS_DIR, name)).filter((path) => path.startsWith(prefix) && path !== lock(done))) {
    rmSync(stale, { recursive: true, force: true });
  }
  const loading = mkdtempSync(`${done}.loading-`);
  try {
    await runQueryCli(['seed', '--count', String(ads)], { ...env, DATA_DIR: loading });
    renameSync(loading, done);
  } finally {
    rmSync(loading, { recursive: true, force: true });
  }
}

/** Whether the process that took `lock` still runs (a lock without its pid file is held for its first seconds). */
function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs the built query-api CLI (`args` after the script) to its end; rejects with its output when it fails. */
export function runQueryCli(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const child = spawn(process.execPath, [QUERY_CLI, ...args], { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`query-api ${args[0] ?? ''} exited ${code}:\n${output.join('')}`))));
  });
}
