import { createHash } from 'node:crypto';

/**
 * A fixed amount of CPU work (SHA-1 over 64 MB) timed in this thread's CPU milliseconds. Benchmarks run it first and
 * last and print it beside their figures: dividing by it compares runs from different hours and machines (CPU
 * seconds on the shared 2-core machine drift by a third between hours).
 */
export function calibrationMs(): number {
  const block = Buffer.alloc(1 << 20, 7);
  const started = process.cpuUsage();
  for (let i = 0; i < 64; i++) createHash('sha1').update(block).digest();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}
