import type { Redis } from '@adintel/redis';

export interface WindowCount {
  readonly count: number;
  /** Seconds until the current window ends (and its count with it). */
  readonly secondsLeft: number;
}

/** The current fixed window of a counter: its Redis key and how long it has left. */
export function currentWindow(name: string, windowSeconds: number, now = Date.now()) {
  const window = Math.floor(now / 1000 / windowSeconds);
  return { key: `${name}:${window}`, secondsLeft: Math.max(1, Math.ceil((window + 1) * windowSeconds - now / 1000)) };
}

/** Adds one to a counter of the current window, in Redis so every replica shares it. */
export async function countHit(redis: Redis, name: string, windowSeconds: number, now = Date.now()): Promise<WindowCount> {
  const { key, secondsLeft } = currentWindow(name, windowSeconds, now);
  const [[, count]] = (await redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec()) as [[null, number]];
  return { count, secondsLeft };
}

/** Reads counters of the current window without adding to them. */
export async function readCounts(redis: Redis, names: readonly string[], windowSeconds: number, now = Date.now()): Promise<WindowCount[]> {
  const windows = names.map((name) => currentWindow(name, windowSeconds, now));
  const counts = windows.length ? await redis.mget(...windows.map((w) => w.key)) : [];
  return windows.map((w, i) => ({ count: Number(counts[i] ?? 0), secondsLeft: w.secondsLeft }));
}
