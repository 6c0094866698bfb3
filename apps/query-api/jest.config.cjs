/** @type {import('jest').Config} */
module.exports = {
  displayName: 'query-api',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/query-api',
  // Two suites at once (jest's default on 2 cores is one): the process suites (store-load, live, query-api, the
  // Elasticsearch double) wait mostly on the processes they start, each on a private Redis and its own data dir.
  maxWorkers: 2,
  // Jest's 5 s default bounds a test's wall time, which a loaded 2-core machine stretches: the Elasticsearch writer's
  // retry test (1.1 s alone) ran past it with two suites at once at load average 30. Tests bound their own waits.
  testTimeout: 30_000,
};
