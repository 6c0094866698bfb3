/** @type {import('jest').Config} */
module.exports = {
  displayName: 'query-api',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/query-api',
};
