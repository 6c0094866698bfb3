#!/usr/bin/env node
// Adds up the test counts of one `npm test` run (jest "Tests:" lines and node --test "ℹ pass/fail/skipped"
// lines, as Nx streams them) and prints one plain closing line: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const text = stripVTControlCharacters(readFileSync(process.argv[2], 'utf8'));
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const line of text.split('\n')) {
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
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
