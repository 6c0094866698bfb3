/** @type {import('jest').Config} */
module.exports = {
  displayName: 'mcp-views',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/libs/mcp-views',
};
