#!/usr/bin/env node
// Adds up the test counts of one `npm test` run (jest "Tests:" lines and node --test "ℹ pass/fail/skipped"
// lines, as Nx streams them), lists the ten slowest suites (jest's "PASS/FAIL <project> <file> (N s)" lines, which
// jest prints for a suite over 5 s, and each project's whole node --test run, "ℹ duration_ms"), and ends with one
// plain closing line: "tests: N passed, N failed, N skipped". Given Nx's task profiles (NX_PROFILE, a trace of every
// task's start and duration; one per lane of tools/ci/test-lanes.mjs) after the log, it first lists the ten longest
// Nx tasks with when each started, which shows what the run waited on. Failed suites and tests (jest's "FAIL" and
// "●" lines, node --test's "✖" lines) are named last, just above the closing line: CI keeps only the end of a long log.
// Under each jest test goes the first lines of what jest printed below its "●" line (the error), which that end
// would not otherwise hold.
import { existsSync, readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const text = stripVTControlCharacters(readFileSync(process.argv[2], 'utf8'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const suites = [];
/** Failed suite or test → the first lines of its error (jest tests only). */
const failures = new Map();
const lines = text.split('\n');
for (const [index, line] of lines.entries()) {
  // A FAIL line as jest prints it first (project, then the path), not in its closing list (the path alone).
  const failed = line.match(/^(?:[\w-]+:\s+)?\s*(?:FAIL\s+\S+\s+(\S+\.[cm]?[jt]sx?)\b|● (.+›.+)|✖ (.+?)(?: \(\d+(?:\.\d+)?m?s\))?$)/);
  if (failed && !/^failing tests:?$/.test(failed[3] ?? '')) {
    const name = (failed[1] ?? failed[2] ?? failed[3]).trim();
    if (!failures.has(name)) failures.set(name, failed[2] ? errorAfter(index) : []);
  }
  const suite = line.match(/(?:PASS|FAIL)\s+\S+\s+(\S+)\s+\((\d+(?:\.\d+)?) s\)/);
  if (suite) suites.push({ name: suite[1], seconds: Number(suite[2]) });
  const nodeRun = line.match(/^(?:([\w-]+):\s+)?ℹ duration_ms (\d+(?:\.\d+)?)/);
  if (nodeRun) suites.push({ name: `${nodeRun[1] ?? '?'} (node --test, every file)`, seconds: Number(nodeRun[2]) / 1000 });
  const jest = line.match(/Tests:\s+(.*)\s+\d+ total/);
  if (jest) {
    for (const [, count, kind] of jest[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g)) {
      if (kind in totals) totals[kind] += Number(count);
    }
    continue;
  }
  const node = line.match(/ℹ (pass|fail|skipped) (\d+)\s*$/);
  if (node) totals[{ pass: 'passed', fail: 'failed', skipped: 'skipped' }[node[1]]] += Number(node[2]);
}
const tasks = process.argv
  .slice(3)
  .filter((file) => existsSync(file))
  .flatMap((file) => JSON.parse(readFileSync(file, 'utf8')).filter((event) => event.ph === 'X'));
if (tasks.length) {
  const start = Math.min(...tasks.map((task) => task.ts));
  const end = Math.max(...tasks.map((task) => task.ts + task.dur));
  console.log(`longest Nx tasks (of ${tasks.length}, ${((end - start) / 1e6).toFixed(0)} s from the first start to the last end):`);
  for (const task of tasks.sort((a, b) => b.dur - a.dur).slice(0, 10)) {
    console.log(`  ${(task.dur / 1e6).toFixed(1).padStart(7)} s  ${task.name} (from ${((task.ts - start) / 1e6).toFixed(0)} s)`);
  }
}
if (suites.length) {
  console.log('slowest suites:');
  for (const { name, seconds } of suites.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${name}`);
}
if (failures.size) {
  console.log('failed:');
  for (const [name, error] of [...failures].slice(0, 40)) {
    console.log(`  ${name}`);
    for (const errorLine of error) console.log(`      ${errorLine}`);
  }
  if (failures.size > 40) console.log(`  ... and ${failures.size - 40} more`);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);

/** Up to three non-blank lines after the "●" line at `index`, before the source frame, the stack or the next test. */
function errorAfter(index) {
  const error = [];
  for (const line of lines.slice(index + 1, index + 40)) {
    // jest indents what it prints under a test; a line that starts at the margin starts with Nx's prefix.
    const body = line.replace(/^[\w-]+:(?=\s)/, '').trim();
    // The source frame jest prints after the message ("> 21 | ...", "   | ^") says less than the message.
    if (body.startsWith('● ') || body.startsWith('at ') || /^(>\s*)?\d*\s*\|/.test(body) || error.length === 3) break;
    if (body) error.push(body.length > 160 ? `${body.slice(0, 157)}...` : body);
  }
  return error;
}
