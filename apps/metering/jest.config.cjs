/** @type {import('jest').Config} */
module.exports = {
  displayName: 'metering',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/metering',
};
