import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const summarize = (text, profiles = []) => {
  const dir = mkdtempSync(join(tmpdir(), 'summary-'));
  writeFileSync(join(dir, 'log'), text);
  const files = profiles.map((profile, i) => {
    writeFileSync(join(dir, `lane-${i}.json`), JSON.stringify(profile));
    return join(dir, `lane-${i}.json`);
  });
  const args = [join(import.meta.dirname, 'summarize-tests.mjs'), join(dir, 'log'), ...files, join(dir, 'missing.json')];
  try {
    return execFileSync(process.execPath, args, { encoding: 'utf8' }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test('adds up jest and node test runner counts, colours and Nx prefixes included', () => {
  const log = [
    'query-api: \x1b[1mTests:       \x1b[22m\x1b[1m\x1b[33m1 skipped\x1b[39m\x1b[22m, \x1b[1m\x1b[32m149 passed\x1b[39m\x1b[22m, 150 total',
    'metering: Tests:       2 failed, 23 passed, 25 total',
    'dev-stack: ℹ pass 3',
    'dev-stack: ℹ fail 1',
    'dev-stack: ℹ skipped 0',
    'dev-stack: ℹ tests 4',
  ].join('\n');
  assert.equal(summarize(log), 'tests: 175 passed, 3 failed, 1 skipped');
});

test('says zero when no runner reported', () => {
  assert.equal(summarize('nothing ran\n'), 'tests: 0 passed, 0 failed, 0 skipped');
});

test('lists the ten slowest suites, jest files and node --test runs, slowest first, before the closing line', () => {
  const jest = Array.from({ length: 11 }, (_, i) => `e2e: PASS e2e apps/e2e/test/s${i}.spec.ts (${10 + i}.5 s)`);
  const log = [...jest, 'query-api: FAIL query-api apps/query-api/test/x.process.spec.ts (99.0 s)', 'dev-stack: ℹ duration_ms 150123.4', 'e2e: Tests: 12 passed, 12 total'].join('\n');
  const lines = summarize(log).split('\n');
  assert.equal(lines[0], 'slowest suites:');
  assert.deepEqual(lines.slice(1, 4).map((line) => line.trim()), [
    '150.1 s  dev-stack (node --test, every file)',
    '99.0 s  apps/query-api/test/x.process.spec.ts',
    '20.5 s  apps/e2e/test/s10.spec.ts',
  ]);
  assert.equal(lines.length, 14); // the heading, ten suites, the failed suite under its heading, the closing line
  assert.ok(!lines.some((line) => line.includes('s0.spec.ts')), 'the eleventh is left out');
  assert.equal(lines.at(-1), 'tests: 12 passed, 0 failed, 0 skipped');
});

test("lists the longest Nx tasks of the lanes' task profiles together, with when each started", () => {
  const task = (name, startS, durS) => ({ name, ph: 'X', ts: (1_000 + startS) * 1e6, dur: durS * 1e6, pid: 1, tid: 0 });
  const build = [{ name: 'thread_name', ph: 'M', ts: 0 }, task('query-api:build', 0, 40), task('config:lint', 1, 3)];
  const lines = summarize('e2e: Tests: 1 passed, 1 total\n', [build, [task('e2e:test', 40, 300.04)]]).split('\n');
  assert.deepEqual(lines.map((line) => line.trim()), [
    'longest Nx tasks (of 3, 340 s from the first start to the last end):',
    '300.0 s  e2e:test (from 40 s)',
    '40.0 s  query-api:build (from 0 s)',
    '3.0 s  config:lint (from 1 s)',
    'tests: 1 passed, 0 failed, 0 skipped',
  ]);
});

test('names the failed suites and tests, jest and node --test, once each, just above the closing line', () => {
  const log = [
    'e2e:  FAIL   e2e  apps/e2e/test/fuzz.spec.ts (120.3 s)',
    'e2e:  FAIL  test/fuzz.spec.ts (120.3 s)',
    'e2e:   ● fuzz › rejects bad input on search_ads',
    'e2e:   ● fuzz › rejects bad input on search_ads',
    'e2e:   ● Console',
    'dev-stack: ✖ npm start seeds a store (1234.5ms)',
    'dev-stack: ✖ failing tests:',
    'dev-stack: ✖ npm start seeds a store (1234.5ms)',
    'e2e: Tests:       1 failed, 3 passed, 4 total',
    'dev-stack: ℹ fail 1',
  ].join('\n');
  const lines = summarize(log).split('\n');
  assert.deepEqual(lines.slice(-5).map((line) => line.trim()), [
    'failed:',
    'apps/e2e/test/fuzz.spec.ts',
    'fuzz › rejects bad input on search_ads',
    'npm start seeds a store',
    'tests: 3 passed, 2 failed, 0 skipped',
  ]);
});

test("puts the first lines of a jest test's error under its name", () => {
  const log = [
    'query-api:   ● live › makes a new ad visible',
    'query-api: ',
    'query-api:     http://127.0.0.1:20000/readyz did not answer 200 within 30000 ms',
    'query-api: ',
    'query-api:       114 |   }',
    'query-api:     > 115 |   throw new Error(message);',
    'query-api:       at waitUntilReady (libs/testing/src/app-process.ts:115:9)',
    'query-api:   ● live › moves the ad',
    '',
    '    expect(received).toBe(expected) // Object.is equality',
    '    Expected: 0',
    '    Received: 1',
    '    Error: never shown, three lines are enough',
    'query-api: Tests:       2 failed, 2 total',
  ].join('\n');
  assert.deepEqual(summarize(log).split('\n').slice(-8).map((line) => line.trim()), [
    'failed:',
    'live › makes a new ad visible',
    'http://127.0.0.1:20000/readyz did not answer 200 within 30000 ms',
    'live › moves the ad',
    'expect(received).toBe(expected) // Object.is equality',
    'Expected: 0',
    'Received: 1',
    'tests: 0 passed, 2 failed, 0 skipped',
  ]);
});
