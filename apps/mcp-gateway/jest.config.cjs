/** @type {import('jest').Config} */
module.exports = {
  displayName: 'mcp-gateway',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/mcp-gateway',
  // jose is ESM-only: let swc turn it into CommonJS like the @nestjs packages.
  // Closes the servers of a suite whose start-up hook timed out (test/support/close-leftovers.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/close-leftovers.ts'],
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|jose)/)'],
};
