// Bundles the transport benchmark (and the libs it imports) into dist/libs/transport-bench/transport-bench.js.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

module.exports = {
  output: { path: join(__dirname, '../../../dist/libs/transport-bench') },
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './bench/transport-bench.ts',
      tsConfig: './tsconfig.lib.json',
      outputFileName: 'transport-bench.js',
      externalDependencies: 'all',
      optimization: false,
      outputHashing: 'none',
      sourceMap: true,
      skipTypeChecking: true,
      generatePackageJson: false,
    }),
  ],
};
