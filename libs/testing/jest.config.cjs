/** @type {import('jest').Config} */
module.exports = {
  displayName: 'testing',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/testing',
};
