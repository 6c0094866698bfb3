/** @type {import('jest').Config} */
module.exports = {
  displayName: 'tool-catalogue',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/tool-catalogue',
};
