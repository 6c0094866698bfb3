/** @type {import('jest').Config} */
module.exports = {
  displayName: 'contracts',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/contracts',
};
