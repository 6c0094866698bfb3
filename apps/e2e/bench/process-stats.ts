import { readFileSync } from 'node:fs';
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
