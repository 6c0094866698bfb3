import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childrenCpuSeconds, plan } from './test-lanes.mjs';

test('builds beside the checks first, then a test lane per long project and one for the others, none building', () => {
  const [first, second, third] = plan(['e2e', 'query-api'], { project: 'e2e', suite: 'faults\\.spec' });
  assert.deepEqual(first.map((lane) => lane.name), ['build', 'checks']);
  assert.deepEqual(first[0].args.slice(0, 3), ['run-many', '-t', 'build']);
  assert.deepEqual(first[1].args.slice(0, 4), ['run-many', '-t', 'lint', 'typecheck']);
  assert.deepEqual(second.map((lane) => lane.name), ['test-e2e', 'test-query-api', 'test-others']);
  for (const lane of second) {
    assert.ok(lane.args.includes('test') && lane.args.includes('--excludeTaskDependencies'), lane.name);
  }
  assert.ok(second[0].args.includes('e2e') && second[1].args.includes('query-api'));
  assert.ok(second[2].args.includes('--exclude=e2e,query-api'));
  // The suite that runs alone is left out of its project's lane and runs by itself once the lanes have ended.
  assert.ok(second[0].args.includes('--testPathIgnorePatterns=faults\\.spec'));
  assert.ok(!second[1].args.some((arg) => arg.startsWith('--testPath')));
  assert.deepEqual(third.map((lane) => lane.name), ['test-e2e-alone']);
  assert.ok(third[0].args.includes('--testPathPatterns=faults\\.spec') && third[0].args.includes('e2e'));
  // One suite after the other: alone means beside nothing else, each other included.
  assert.ok(third[0].args.includes('--runInBand'));
});

test("reads the children's CPU from /proc/self/stat, a command name with spaces and parentheses included", () => {
  const stat = '4242 (node (lanes) x) S 1 4242 4242 0 -1 4194304 100 200 0 0 150 20 12345 678 20 0 11 0 100 0 0';
  assert.equal(childrenCpuSeconds(stat), 130.23);
  assert.equal(childrenCpuSeconds(null), null);
});
