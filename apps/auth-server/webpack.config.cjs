// Bundles the app (and the @adintel/* libs it imports) into dist/apps/auth-server/main.js,
// and the operator command into dist/apps/auth-server/create-owner.js.
// tsc via ts-loader keeps decorator metadata (esbuild would drop it); node_modules stay external
// (NestJS 12 is ESM-only and is loaded through require(esm) on Node 24).
// Type errors are reported by the separate `typecheck` target.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

module.exports = {
  output: { path: join(__dirname, '../../dist/apps/auth-server') },
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './src/main.ts',
      tsConfig: './tsconfig.app.json',
      outputFileName: 'main.js',
      // The operator command `nx run auth-server:create-owner` runs dist/apps/auth-server/create-owner.js.
      additionalEntryPoints: [{ entryName: 'create-owner', entryPath: './src/cli/create-owner.ts' }],
      externalDependencies: 'all',
      optimization: false,
      outputHashing: 'none',
      sourceMap: true,
      skipTypeChecking: true,
      generatePackageJson: false,
    }),
  ],
};
