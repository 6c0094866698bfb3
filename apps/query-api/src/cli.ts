/**
 * query-api's data commands (bundled as dist/apps/query-api/cli.js; run through nx):
 *   seed [--count N] [--force]      generate N demo ads (default 100,000) and ingest them, unless the store has data
 *   ingest <file.ndjson> [--force]  load an NDJSON file (--force: empty the store first)
 *   generate --out <file> [--count N] [--seed S]   only write demo NDJSON
 */
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '@adintel/config';
import { appConfigSchema } from './config';
import { DEFAULT_SEED, writeDemoNdjson } from './ingest/demo-generator';
import { formatSummary, ingestFile } from './ingest/ingest';
import { createAdStoreWriter } from './store/store-factory';
import { MediaIngest } from './media/media-ingest';
import { MediaLibrary } from './media/media-library';
import { createMediaStore } from './media/media-store-factory';

const out = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      count: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      file: { type: 'string' },
      force: { type: 'boolean', default: false },
    },
  });
  const [command, fileArg] = positionals;
  const count = values.count === undefined ? 100_000 : Number(values.count);
  if (!Number.isInteger(count) || count < 1) throw new Error('--count must be a positive integer');
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);

  if (command === 'generate') {
    if (!values.out) throw new Error('generate needs --out <file>');
    await writeDemoNdjson(values.out, count, seed);
    out(`wrote ${count} demo ads to ${values.out}`);
    return 0;
  }

  const config = loadConfigOrExit(appConfigSchema, 'query-api');
  const writer = createAdStoreWriter(config);
  const mediaStore = createMediaStore(config);
  const library = new MediaLibrary(mediaStore);
  try {
    if (command === 'seed') {
      const existing = await writer.size();
      if (existing > 0 && !values.force) {
        out(`the ${config.STORE_ENGINE} store already holds ${existing} ads: not seeding (use --force to replace them)`);
        return 0;
      }
      const file = join(config.DATA_DIR, `demo-ads-${count}.ndjson`);
      const started = performance.now();
      await writeDemoNdjson(file, count, seed);
      out(`generated ${count} demo ads in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${file}`);
      await writer.clear();
      // Demo pictures are rendered once per creative (the ads of a creative share its URLs), not per ad.
      const summary = await ingestFile(file, writer, { progress: process.stderr.isTTY, media: new MediaIngest(library, null) });
      out(formatSummary(summary));
      return summary.written > 0 ? 0 : 1;
    }
    if (command === 'ingest') {
      const file = values.file ?? fileArg;
      if (!file) throw new Error('ingest needs a file: ingest <file.ndjson>');
      if (values.force) await writer.clear();
      // Media paths are relative to the NDJSON file's folder (the bundle; docs/media.md).
      const summary = await ingestFile(file, writer, { progress: true, media: new MediaIngest(library, dirname(file)) });
      out(formatSummary(summary));
      return summary.rejected > 0 && summary.written === 0 ? 1 : 0;
    }
    throw new Error(`unknown command ${JSON.stringify(command ?? '')}: use seed, ingest or generate`);
  } finally {
    await writer.close();
    await mediaStore.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    out(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
