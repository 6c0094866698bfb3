// Bundles the transport benchmark (and the libs it imports) into dist/libs/transport-bench/transport-bench.js.
const { join } = require('node:path');
const { nodeAppConfig } = require('../../../tools/webpack/node-app.cjs');

module.exports = {
  ...nodeAppConfig(__dirname, { main: './bench/transport-bench.ts', tsConfig: './tsconfig.lib.json', outputFileName: 'transport-bench.js' }),
  output: { path: join(__dirname, '../../../dist/libs/transport-bench') },
};
