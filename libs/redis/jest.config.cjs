/** @type {import('jest').Config} */
module.exports = {
  displayName: 'redis',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/redis',
};
