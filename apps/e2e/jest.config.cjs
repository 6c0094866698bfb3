/** @type {import('jest').Config} */
module.exports = {
  displayName: 'e2e',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/e2e',
  // Each suite runs the whole service as processes on a private Redis and its own copy of the seeded store, so
  // two suites at once share nothing; most of their time is waiting on those processes.
  maxWorkers: 2,
  // Starts the seeds of the stores the suites copy, beside the first suites (test/global-setup.ts).
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Stops the stacks of a suite whose start-up timed out (test/stop-unclaimed-stacks.ts).
  setupFilesAfterEnv: ['<rootDir>/test/stop-unclaimed-stacks.ts'],
  testTimeout: 60_000,
  // ext-apps ships ESM only: swc turns it into CommonJS for the test host's AppBridge.
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|jose|@modelcontextprotocol/ext-apps)/)'],
};
