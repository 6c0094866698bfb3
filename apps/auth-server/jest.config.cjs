/** @type {import('jest').Config} */
module.exports = {
  displayName: 'auth-server',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
  coverageDirectory: '../../coverage/apps/auth-server',
};
