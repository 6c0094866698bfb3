const { nodeAppConfig } = require('../../tools/webpack/node-app.cjs');

// The operator CLI (parked events) is bundled beside main.js.
module.exports = nodeAppConfig(__dirname, {
  additionalEntryPoints: [{ entryName: 'cli', entryPath: 'apps/metering/src/cli.ts' }],
  runtimeChunk: false,
});
