/** @type {import('jest').Config} */
module.exports = {
  displayName: 'public-fetch',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/public-fetch',
};
