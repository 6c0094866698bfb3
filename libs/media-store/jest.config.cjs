/** @type {import('jest').Config} */
module.exports = {
  displayName: 'media-store',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/media-store',
};
