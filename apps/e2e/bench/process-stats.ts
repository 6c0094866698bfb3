import { readdirSync, readFileSync } from 'node:fs';
import type { Redis } from '@adintel/redis';

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, from /proc/<pid>/stat (its worker threads included). */
export function appCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** A thread's CPU time so far (ms) and its time ready to run but waiting for a core (ms, /proc schedstat). */
export interface ThreadTimes {
  readonly name: string;
  readonly ms: number;
  readonly waitMs: number;
}

/**
 * CPU time (ms) of each thread of a process so far, by thread id, with its name (`MainThread`, a worker_threads
 * Worker's name or `WorkerThread` for one not named, `V8Worker` for V8's garbage-collector and compiler helpers...),
 * and how long it waited for a core (the scheduler's run queue: on a busy machine, what a thread loses beside its
 * CPU). Threads that ended are gone.
 */
export function appThreadCpuMs(pid: number): Map<number, ThreadTimes> {
  const threads = new Map<number, ThreadTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const waitNs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1] ?? 0);
      threads.set(Number(tid), { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND, waitMs: waitNs / 1e6 });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/**
 * Per-thread CPU (or, with `of` 'waitMs', time waiting for a core) between two readings, grouped: `main`, each named
 * worker thread by its name (query-api's `query-worker-1` (it also runs the scans), `query-worker-2`..., its
 * `live-writer`), other worker threads in start order (`worker 1`, ...), `helpers` (V8's garbage-collector and
 * compiler threads, libuv's pool).
 */
export function threadCpuBetween(before: Map<number, ThreadTimes>, after: Map<number, ThreadTimes>, of: 'ms' | 'waitMs' = 'ms'): [string, number][] {
  const rows: [string, number][] = [];
  let main = 0;
  let helpers = 0;
  let worker = 0;
  for (const [tid, times] of [...after].sort((a, b) => a[0] - b[0])) {
    const { name } = times;
    const spent = times[of] - (before.get(tid)?.[of] ?? 0);
    if (name === 'MainThread') main += spent;
    else if (NAMED_WORKERS.test(name)) rows.push([name, spent]);
    else if (name === 'WorkerThread') rows.push([`worker ${++worker}`, spent]);
    else helpers += spent;
  }
  return [['main', main], ...rows, ['helpers', helpers]];
}

/** The names query-api gives its worker threads (worker-pool.ts, sqlite-live-writer.ts). */
const NAMED_WORKERS = /^(query-worker-\d+|live-writer)$/;

/** Bytes a process has caused to be written to storage so far (/proc/<pid>/io write_bytes). */
export function appWrittenBytes(pid: number): number {
  return Number(/^write_bytes: (\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

export interface Resident {
  /** VmRSS, MB. */
  readonly total: number;
  /** Of which anonymous memory (heaps, native allocations), MB. */
  readonly anon: number;
  /** Of which pages of mapped files (the code, and the SQLite file query-api maps), MB: reclaimable. */
  readonly file: number;
}

/** Resident set size of a process, from /proc/<pid>/status. */
export function appResident(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  return { total: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile') + mb('RssShmem') };
}

/** CPU time Redis has used so far (INFO cpu), in ms. */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000;
}
