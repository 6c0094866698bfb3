/** @type {import('jest').Config} */
module.exports = {
  displayName: 'transport',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/transport',
};
