const { nodeAppConfig } = require('../../tools/webpack/node-app.cjs');

// The operator command `nx run auth-server:create-owner` runs dist/apps/auth-server/create-owner.js.
module.exports = nodeAppConfig(__dirname, {
  additionalEntryPoints: [{ entryName: 'create-owner', entryPath: './src/cli/create-owner.ts' }],
});
