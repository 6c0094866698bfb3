/** @type {import('jest').Config} */
module.exports = {
  displayName: 'query-api',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/query-api',
  // Two suites at once (jest's default on 2 cores is one): the process suites (store-load, live, query-api, the
  // Elasticsearch double) wait mostly on the processes they start, each on a private Redis and its own data dir.
  maxWorkers: 2,
};
