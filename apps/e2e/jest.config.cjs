/** @type {import('jest').Config} */
module.exports = {
  displayName: 'e2e',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/e2e',
  // Four real processes per suite: one suite at a time, with room for start-up on a busy machine.
  maxWorkers: 1,
  testTimeout: 60_000,
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|jose)/)'],
};
