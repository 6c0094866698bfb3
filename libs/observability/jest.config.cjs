/** @type {import('jest').Config} */
module.exports = {
  displayName: 'observability',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/observability',
};
