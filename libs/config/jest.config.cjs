/** @type {import('jest').Config} */
module.exports = {
  displayName: 'config',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/config',
};
