/** @type {import('jest').Config} */
module.exports = {
  displayName: 'e2e',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/e2e',
  // Four real processes per suite: one suite at a time, with room for start-up on a busy machine.
  maxWorkers: 1,
  testTimeout: 60_000,
  // ext-apps ships ESM only: swc turns it into CommonJS for the test host's AppBridge.
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|jose|@modelcontextprotocol/ext-apps)/)'],
};
