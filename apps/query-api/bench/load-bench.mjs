#!/usr/bin/env node
/**
 * Benchmark (not a test) of the offline load: runs `cli.js seed --count N --pictures 0 --render later` of one or more
 * builds side by side (alternating, same machine, same minutes) and prints, per build and size, the wall seconds and
 * the process's CPU seconds (all threads, from /proc/<pid>/stat) of each phase: generating the demo NDJSON, writing the
 * rows, and finish() (indexes, rollups), then each build's line of finish()'s steps (CPU seconds, where it prints one).
 * A phase ends when the seed prints its line (cli.ts, ingest.ts).
 *   node apps/query-api/bench/load-bench.mjs [--cli=dist/apps/query-api/cli.js,/tmp/old/cli.js] [--sizes=100000,1000000] [--runs=1]
 * Needs no Redis: with --pictures 0 the seed queues no pictures.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { cli: { type: 'string', default: 'dist/apps/query-api/cli.js' }, sizes: { type: 'string', default: '100000' }, runs: { type: 'string', default: '1' } },
});
const clis = values.cli.split(',');
const sizes = values.sizes.split(',').map(Number);
const runs = Number(values.runs);
const TICK = 100; // USER_HZ on Linux

/** utime + stime of a process (every thread), in seconds. */
function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return null;
  }
}

/** Runs one seed; returns each phase's { wall, cpu } (seconds). */
function seed(cli, count) {
  const dataDir = mkdtempSync(join(tmpdir(), 'load-bench-'));
  const child = spawn(process.execPath, ['--max-semi-space-size=64', cli, 'seed', '--count', String(count), '--pictures', '0', '--render', 'later'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const started = performance.now();
  const marks = [];
  let lastCpu = 0;
  // The CPU at the moment of a line: sampled every 50 ms, the last sample before the process exits kept.
  const sampler = setInterval(() => (lastCpu = cpuOf(child.pid) ?? lastCpu), 50);
  const mark = (name) => marks.push({ name, wall: (performance.now() - started) / 1000, cpu: cpuOf(child.pid) ?? lastCpu });
  let buffered = '';
  /** The seed's line of finish()'s steps (a build that prints one). */
  let steps = '';
  child.stderr.on('data', (chunk) => {
    buffered += chunk.toString();
    let at;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      if (line.startsWith('generated ')) mark('generate');
      else if (line.startsWith('rows written')) mark('rows');
      else if (line.startsWith('ingested ')) mark('finish');
      else if (/^\s+finish[:,]/.test(line)) steps = line.trim();
      else if (line.startsWith('error')) process.stderr.write(`${line}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      clearInterval(sampler);
      rmSync(dataDir, { recursive: true, force: true });
      if (code !== 0 || marks.length < 3) return reject(new Error(`${cli} seed --count ${count} exited ${code}: ${buffered}`));
      const phases = {};
      let previous = { wall: 0, cpu: 0 };
      for (const m of marks) {
        phases[m.name] = { wall: m.wall - previous.wall, cpu: m.cpu - previous.cpu };
        previous = m;
      }
      phases.load = { wall: phases.rows.wall + phases.finish.wall, cpu: phases.rows.cpu + phases.finish.cpu };
      resolve({ phases, steps });
    });
  });
}

const f1 = (n) => n.toFixed(1);
const rate = (count, s) => Math.round(count / s).toLocaleString('en');
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the start (${new Date().toISOString()})`);
console.log('| ads | build | generate: wall s / CPU s / ads per CPU s | rows: wall / CPU | finish: wall / CPU | load: wall s / CPU s / ads/s (wall) / ads per CPU s |');
console.log('|---:|---|---|---|---|---|');
const stepLines = [];
for (const count of sizes) {
  for (let run = 0; run < runs; run++) {
    for (const cli of clis) {
      const { phases: p, steps } = await seed(cli, count);
      if (steps) stepLines.push(`${count.toLocaleString('en')} ${cli}: ${steps}`);
      console.log(
        `| ${count.toLocaleString('en')} | ${cli} | ${f1(p.generate.wall)} / ${f1(p.generate.cpu)} / ${rate(count, p.generate.cpu)} | ${f1(p.rows.wall)} / ${f1(p.rows.cpu)} | ` +
          `${f1(p.finish.wall)} / ${f1(p.finish.cpu)} | ${f1(p.load.wall)} / ${f1(p.load.cpu)} / ${rate(count, p.load.wall)} / ${rate(count, p.load.cpu)} |`,
      );
    }
  }
}
for (const line of stepLines) console.log(line);
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
