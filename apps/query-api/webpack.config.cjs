// Bundles the app (and the @adintel/* libs it imports) into dist/apps/query-api/main.js
// (+ sqlite-worker.js, cli.js, bench.js).
// tsc via ts-loader keeps decorator metadata (esbuild would drop it); node_modules stay external
// (NestJS 12 is ESM-only and is loaded through require(esm) on Node 24).
// Type errors are reported by the separate `typecheck` target.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

module.exports = {
  output: { path: join(__dirname, '../../dist/apps/query-api') },
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './src/main.ts',
      // The query workers, the seed/ingest CLI and the benchmark are bundled beside main.js.
      additionalEntryPoints: [
        { entryName: 'sqlite-worker', entryPath: 'apps/query-api/src/store/sqlite/sqlite-worker.ts' },
        { entryName: 'cli', entryPath: 'apps/query-api/src/cli.ts' },
        { entryName: 'bench', entryPath: 'apps/query-api/bench/bench.ts' },
      ],
      runtimeChunk: false,
      tsConfig: './tsconfig.app.json',
      outputFileName: 'main.js',
      externalDependencies: 'all',
      optimization: false,
      outputHashing: 'none',
      sourceMap: true,
      skipTypeChecking: true,
      generatePackageJson: false,
    }),
  ],
};
