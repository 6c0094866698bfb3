/**
 * query-api's data commands (bundled as dist/apps/query-api/cli.js; run through nx):
 *   seed [--count N] [--force] [--pictures N|all] [--render now|later]   generate N demo ads (default 100,000) and ingest
 *                                    them, unless the store has data, with up to 4,000 demo pictures (whole families,
 *                                    most-run first), rendered before the seed ends (now) or by the picture workers after
 *   media-worker                     make the pictures queued by the live door, seed and ingest (docs/media.md)
 *   ingest <file.ndjson> [--force] [--render now|later]   load an NDJSON file (--force: empty the store first);
 *                                    its demo pictures and fetched URLs made before it ends (now) or by the picture
 *                                    workers after
 *   (SQLite: both write a new file beside the store and switch to it when finished: store/store-file.ts)
 *   generate --out <file> [--count N] [--seed S]   only write demo NDJSON
 *   sightings --from <demo.ndjson> --out <file|-> [--count N] [--seed S] [--new-share F] [--new-ids after|among]
 *                                    live sightings for a store loaded from that demo file (F new ads, default 0.3, with
 *                                    ids after the stored ones or among them; the rest re-sightings of its ads, seen on
 *                                    its newest day)
 *   ingest --live <file|-> [--rate N]    publish NDJSON lines (a file, or stdin for -) to the live stream INGEST_STREAM
 *   dead-letters [--limit N]              list the lines the service rejected (JSON lines on stdout)
 *   dead-letters --resend all|<id,...>    move them back to the stream, each exactly once
 *   live-status [--forget-group NAME]     the stream, its bound, every consumer group's backlog; drop a gone replica's group
 * (the live commands: docs/live-data.md)
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '@adintel/config';
import { appConfigSchema } from './config';
import { DEFAULT_SEED, DemoPictureFamilies, writeDemoNdjson } from './ingest/demo-generator';
import { demoSightings } from './ingest/demo-sightings';
import { formatSummary, ingestFile } from './ingest/ingest';
import { IngestStreamRepository, resentByAll, STREAM_MAX_BYTES, type ResendOutcome } from './live/ingest-stream.repository';
import { formatPublishSummary, publishLines } from './live/live-publisher';
import { liveSettingsFrom, type LiveSettings } from './live/live-settings';
import type { AdStoreWriter } from './store/ad-store.port';
import { createAdStoreWriter } from './store/store-factory';
import { inspectStore, StoreLoad } from './store/store-file';
import { sqliteFileIn } from './store/sqlite/sqlite-store';
import { createMediaFetcher } from './media/media-fetch';
import { MediaIngest } from './media/media-ingest';
import { MediaLibrary } from './media/media-library';
import { createMediaStore } from './media/media-store-factory';
import { PictureBacklog } from './media/media-ingest';
import { runPictureWorker } from './media/picture-worker-process';
import { PictureQueue } from './media/picture-queue';

const out = (line: string) => process.stderr.write(`${line}\n`);

/** Demo pictures the seed renders by default (about 24 ms of CPU each): `--pictures all` renders every one. */
const DEFAULT_PICTURES = 4_000;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      count: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      file: { type: 'string' },
      force: { type: 'boolean', default: false },
      from: { type: 'string' },
      live: { type: 'string' },
      rate: { type: 'string' },
      limit: { type: 'string' },
      resend: { type: 'string' },
      'forget-group': { type: 'string' },
      pictures: { type: 'string' },
      render: { type: 'string' },
      'new-share': { type: 'string' },
      'new-ids': { type: 'string' },
    },
  });
  const [command, fileArg] = positionals;
  if (values.render !== undefined && values.render !== 'now' && values.render !== 'later') throw new Error('--render must be now or later');
  const count = values.count === undefined ? 100_000 : Number(values.count);
  if (!Number.isInteger(count) || count < 1) throw new Error('--count must be a positive integer');
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);

  if (command === 'generate') {
    if (!values.out) throw new Error('generate needs --out <file>');
    await writeDemoNdjson(values.out, count, seed);
    out(`wrote ${count} demo ads to ${values.out}`);
    return 0;
  }

  if (command === 'sightings') {
    if (!values.from || !values.out) throw new Error('sightings needs --from <demo.ndjson> and --out <file|->');
    const newShare = values['new-share'] === undefined ? undefined : Number(values['new-share']);
    if (newShare !== undefined && !(newShare >= 0 && newShare <= 1)) throw new Error('--new-share must be a number from 0 to 1');
    const newIds = values['new-ids'];
    if (newIds !== undefined && newIds !== 'after' && newIds !== 'among') throw new Error('--new-ids must be after or among');
    const lines = await demoSightings(values.from, values.count === undefined ? 10_000 : count, { seed, newShare, newIds });
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    if (values.out === '-') process.stdout.write(text);
    else await writeFile(values.out, text);
    out(`wrote ${lines.length} sightings${values.out === '-' ? '' : ` to ${values.out}`}`);
    return 0;
  }

  const config = loadConfigOrExit(appConfigSchema, 'query-api');
  const live = liveSettingsFrom(config);
  if (command === 'ingest' && values.live !== undefined) return withStream(live, (stream) => publish(stream, live, values.live ?? '-', values.rate));
  if (command === 'dead-letters') return withStream(live, (stream) => deadLetters(stream, live, values.resend, values.limit));
  if (command === 'live-status') return withStream(live, (stream) => liveStatus(stream, live, values['forget-group']));
  if (command === 'media-worker') return runPictureWorker(config);

  if (command !== 'seed' && command !== 'ingest') {
    throw new Error(`unknown command ${JSON.stringify(command ?? '')}: use seed, ingest, generate, dead-letters, live-status or media-worker`);
  }
  // SQLite: the load writes a new file beside the store and switches to it when finished (store-file.ts).
  const target = sqliteFileIn(config.DATA_DIR);
  const load = config.STORE_ENGINE === 'sqlite' ? StoreLoad.begin(target, out) : null;
  const found = load ? inspectStore(target) : null;
  if (found && !found.finished && found.ads > 0) {
    out(`the store at ${target} holds ${found.ads} ads that no load finished (stopped midway by an earlier version): ${command === 'seed' || values.force ? 'replacing it' : 'the ingest adds to them and finishes it (--force: start from an empty store)'}`);
  }

  const mediaStore = createMediaStore(config);
  const library = new MediaLibrary(mediaStore);
  let writer: AdStoreWriter | null = null;
  try {
    if (command === 'seed') {
      const existing = load ? (found?.finished ? found.ads : 0) : await (writer = createAdStoreWriter(config)).size();
      if (existing > 0 && !values.force) {
        out(`the ${config.STORE_ENGINE} store already holds ${existing} ads: not seeding (use --force to replace them)`);
        return 0;
      }
      // Demo pictures are rendered once per creative (the ads of a creative share its URLs), not per ad, within the
      // budget (--pictures N | all): whole families of the most-run creatives first, counted as the file is written.
      const budget = values.pictures === 'all' ? null : values.pictures === undefined ? DEFAULT_PICTURES : Number(values.pictures);
      if (budget !== null && (!Number.isInteger(budget) || budget < 0)) throw new Error('--pictures must be a number of pictures or all');
      const families = budget === null || budget === 0 ? null : new DemoPictureFamilies();
      const file = join(config.DATA_DIR, `demo-ads-${count}.ndjson`);
      const started = performance.now();
      await writeDemoNdjson(file, count, seed, families ? (line) => families.add(line) : undefined);
      out(`generated ${count} demo ads in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${file}`);
      writer ??= createAdStoreWriter(config, { sqliteFile: load?.file, progress: out });
      await writer.clear();
      const pictures = budget === null ? undefined : (families?.within(budget) ?? new Set<string>());
      // --render later: the store is complete and served without its pictures; the picture workers render them after.
      const later = values.render === 'later' ? new PictureBacklog(false) : null;
      const summary = await ingestFile(file, writer, { progress: true, media: new MediaIngest(library, null, pictures, null, later), onFinishing });
      out(formatSummary(summary));
      if (summary.written === 0) return 1;
      await queuePictures(later, live);
      await switchTo(load, writer);
      writer = null;
      return 0;
    }
    const file = values.file ?? fileArg;
    if (!file) throw new Error('ingest needs a file: ingest <file.ndjson>');
    // An ingest adds to the store: the new file starts as a copy of it (unless --force empties it anyway).
    if (load && found && !values.force) load.copyFromTarget();
    writer = createAdStoreWriter(config, { sqliteFile: load?.file, progress: out });
    if (values.force) await writer.clear();
    // Media paths are relative to the NDJSON file's folder (the bundle; docs/media.md).
    const fetcher = createMediaFetcher(config);
    // --render later: as the seed's; bundle files are read here either way (media-ingest.ts).
    const later = values.render === 'later' ? new PictureBacklog(fetcher !== null) : null;
    const summary = await ingestFile(file, writer, { progress: true, media: new MediaIngest(library, dirname(file), undefined, fetcher, later), onFinishing }).finally(
      () => fetcher?.close(),
    );
    out(formatSummary(summary));
    if (summary.rejected > 0 && summary.written === 0) return 1;
    await queuePictures(later, live);
    await switchTo(load, writer);
    writer = null;
    return 0;
  } finally {
    await writer?.close();
    load?.discard(); // after a switch there is nothing left to remove; after a failure, the unfinished file
    await mediaStore.close();
  }
}

const onFinishing = () => out('rows written: building indexes and rollups…');

/**
 * Hands a load's pictures left for later to the picture workers. Queued before the switch: a load stopped in between
 * leaves jobs for pictures nobody reads (harmless; the next load queues them again), never a switched store with
 * pictures pending and no job to make them.
 */
async function queuePictures(later: PictureBacklog | null, live: LiveSettings): Promise<void> {
  if (!later?.size) return;
  const queue = PictureQueue.connect(live.url, live.stream);
  const jobs = later.take();
  await queue.enqueue(jobs).finally(() => queue.close());
  out(`queued ${jobs.length} pictures for the picture workers (media-worker)`);
}

/** Closes the writer and, for a SQLite load, puts the finished file in the store's place. */
async function switchTo(load: StoreLoad | null, writer: AdStoreWriter): Promise<void> {
  await writer.close();
  if (!load) return;
  load.commit();
  out(`switched ${load.target} to the finished load`);
}

async function withStream(live: LiveSettings, run: (stream: IngestStreamRepository) => Promise<number>): Promise<number> {
  const stream = IngestStreamRepository.connect(live.url, live.stream, 'query-api:cli');
  try {
    return await run(stream);
  } finally {
    await stream.close();
  }
}

async function publish(stream: IngestStreamRepository, live: LiveSettings, source: string, rateArg: string | undefined): Promise<number> {
  const rate = rateArg === undefined ? undefined : Number(rateArg);
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) throw new Error('--rate must be a positive number of lines per second');
  const summary = await publishLines(source, stream, { maxLen: live.maxLen, ...(rate ? { rate } : {}), progress: true });
  out(formatPublishSummary(summary, live.stream));
  return summary.refused > 0 ? 1 : 0;
}

async function deadLetters(stream: IngestStreamRepository, live: LiveSettings, resend: string | undefined, limitArg: string | undefined): Promise<number> {
  if (resend === undefined) {
    const limit = limitArg === undefined ? 1_000 : Number(limitArg);
    if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive integer');
    const letters = await stream.deadLetters(limit);
    for (const letter of letters) process.stdout.write(`${JSON.stringify(letter)}\n`);
    out(`${letters.length} of ${await stream.deadLetterCount()} dead letters in ${stream.deadStream}`);
    return 0;
  }
  let ids = resend.split(',').map((id) => id.trim());
  if (resend === 'all') {
    const letters = await stream.deadLetters(Number.MAX_SAFE_INTEGER);
    ids = letters.filter(resentByAll).map((letter) => letter.id);
    const kept = letters.length - ids.length;
    if (kept > 0) out(`${kept} dead letters refused for safety (size, address, failed every delivery) are not re-sent by "all"; name their ids to re-send one`);
  }
  let failed = 0;
  for (const id of ids.filter(Boolean)) {
    const outcome = await stream.resend(id, live.maxLen);
    if ('resent' in outcome) out(`${id}: re-sent as ${outcome.resent}`);
    else {
      failed++;
      out(`${id}: ${resendFailure(outcome, live)}`);
    }
  }
  return failed > 0 ? 1 : 0;
}

function resendFailure(outcome: Exclude<ResendOutcome, { resent: string }>, live: LiveSettings): string {
  if ('full' in outcome) {
    const bound = outcome.full === 'bytes' ? `${STREAM_MAX_BYTES} bytes` : `${live.maxLen} entries`;
    return `not re-sent, ${live.stream} is at its bound of ${bound}; try again later`;
  }
  return 'refused' in outcome ? `not re-sent: ${outcome.refused}` : 'not a dead letter (re-sent already?)';
}

async function liveStatus(stream: IngestStreamRepository, live: LiveSettings, forget: string | undefined): Promise<number> {
  if (forget !== undefined) {
    const dropped = await stream.destroyGroup(forget);
    out(dropped ? `dropped the group ${forget}: the stream no longer keeps entries for it` : `no group ${forget} on ${live.stream}`);
    return dropped ? 0 : 1;
  }
  const status = {
    stream: live.stream,
    length: await stream.length(),
    max_length: live.maxLen,
    dead_letters: await stream.deadLetterCount(),
    this_group: live.group,
    // idle_ms: since the group's most recently active consumer last read; a gone replica's group only grows older.
    groups: await Promise.all(
      (await stream.groups()).map(async (group) => {
        const idles = (await stream.consumers(group.name)).map((consumer) => consumer.idle);
        const { name, consumers, pending, lag, lastDelivered } = group;
        return { name, consumers, pending, lag, last_delivered_id: lastDelivered, idle_ms: idles.length ? Math.min(...idles) : null };
      }),
    ),
  };
  process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    out(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
