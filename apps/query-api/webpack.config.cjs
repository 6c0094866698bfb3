const { nodeAppConfig } = require('../../tools/webpack/node-app.cjs');

// The query workers, the live writer's thread, the seed/ingest CLI and the benchmark are bundled beside main.js.
module.exports = nodeAppConfig(__dirname, {
  additionalEntryPoints: [
    { entryName: 'sqlite-worker', entryPath: 'apps/query-api/src/store/sqlite/sqlite-worker.ts' },
    { entryName: 'sqlite-writer-worker', entryPath: 'apps/query-api/src/store/sqlite/sqlite-writer-worker.ts' },
    { entryName: 'cli', entryPath: 'apps/query-api/src/cli.ts' },
    { entryName: 'bench', entryPath: 'apps/query-api/bench/bench.ts' },
    { entryName: 'lookalike-bench', entryPath: 'apps/query-api/bench/lookalike-bench.ts' },
    { entryName: 'live-apply', entryPath: 'apps/query-api/bench/live-apply.ts' },
    { entryName: 'picture-bench', entryPath: 'apps/query-api/bench/picture-bench.ts' },
    { entryName: 'feed-bench', entryPath: 'apps/query-api/bench/feed-bench.ts' },
  ],
  runtimeChunk: false,
});
