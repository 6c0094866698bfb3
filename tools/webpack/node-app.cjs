// The one webpack setup of every app: bundles src/main.ts (and the @adintel/* libs it imports) into
// dist/apps/<app>/main.js, plus any extra entry points beside it.
// tsc via ts-loader keeps decorator metadata (esbuild would drop it); node_modules stay external
// (NestJS 12 is ESM-only and is loaded through require(esm) on Node 24).
// Type errors are reported by the separate `typecheck` target.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('node:path');

/** `appDir` is the app's folder (pass __dirname); `extra` adds NxAppWebpackPlugin options such as additionalEntryPoints. */
function nodeAppConfig(appDir, extra = {}) {
  return {
    output: { path: join(__dirname, '../../dist/apps', basename(appDir)) },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: './src/main.ts',
        tsConfig: './tsconfig.app.json',
        outputFileName: 'main.js',
        externalDependencies: 'all',
        optimization: false,
        outputHashing: 'none',
        sourceMap: true,
        skipTypeChecking: true,
        generatePackageJson: false,
        ...extra,
      }),
    ],
  };
}

module.exports = { nodeAppConfig };
