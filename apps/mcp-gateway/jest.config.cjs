/** @type {import('jest').Config} */
module.exports = {
  displayName: 'mcp-gateway',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/mcp-gateway',
};
