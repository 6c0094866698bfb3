/**
 * Where the Elasticsearch engine's result tests run, in this order:
 * - a recording (ES_REPLAY=<dir>, or with no ES_URL the spec's recording committed under ./recordings): replayed with
 *   nothing behind it (spec/es-server.ts startReplayCluster);
 * - ES_URL: the real cluster there, through the recording proxy when ES_RECORD=<dir> is set too (each spec file into
 *   <dir>/<spec>.ndjson), which checks and records every request with its answer;
 * - otherwise the stand-in cluster in memory mode (spec/es-memory.ts), a DOUBLE for a real cluster, which cannot run on
 *   the build machines: the engine's logic is checked against our reading of Elasticsearch's documented behaviour,
 *   every request against the specification and the rules.
 * Each store gets its own index prefix and removes what it created.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AdRecord } from '../../../src/store/ad-store.port';
import type { LiveStoreUnderTest } from '../change-feed.contract';
import { ElasticsearchAdStore } from '../../../src/store/elasticsearch/elasticsearch-ad-store';
import { type BulkOptions, ElasticsearchAdStoreWriter } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import type { Client } from '@elastic/elasticsearch';
import { createElasticsearchClient, elasticsearchSettingsFrom } from '../../../src/store/elasticsearch/es-client';
import { type ReplayCluster, type SeenRequest, startRecordingProxy, startReplayCluster, startStandInCluster, type StandInCluster } from './spec/es-server';

export const ES_URL = process.env['ES_URL'];
/** A directory: each spec file records into `<dir>/<spec file>.ndjson` (run with --runInBand, docs/operations.md). */
export const ES_RECORD = process.env['ES_RECORD'];
/** Recordings committed with the code: CI replays them when no cluster is named (none exists yet, see its README). */
export const COMMITTED_RECORDINGS = join(__dirname, 'recordings');

/** This spec file's recording in a directory of recordings. */
export function recordingIn(dir: string): string {
  return join(dir, `${basename(expect.getState().testPath ?? 'unknown', '.ts')}.ndjson`);
}

/** The recording to replay instead of a cluster: ES_REPLAY (a directory), else the committed one of this spec if any. */
export function replayFile(): string | undefined {
  const dir = process.env['ES_REPLAY'] ?? (ES_URL ? undefined : COMMITTED_RECORDINGS);
  const file = dir ? recordingIn(dir) : undefined;
  return file && existsSync(file) ? file : undefined;
}

/** Said in test names, so a run's output shows what the engine ran against. */
export function targetName(): string {
  const replay = replayFile();
  if (replay) return `the recording ${basename(replay)}`;
  if (ES_URL) return `the cluster at ES_URL${ES_RECORD ? ', recorded' : ''}`;
  return 'the stand-in cluster (a double: no Elasticsearch runs here)';
}
/** Whether the target answers as a cluster does (real, or replayed from one): the suites needing aggregations run then. */
export const clusterSemantics = (): boolean => Boolean(ES_URL || replayFile());

const started = new Set<string>();

/** One replay server per recording and process: the stores of a run consume its exchanges in order. */
const replays = new Map<string, Promise<ReplayCluster>>();
export function replayOf(file: string): Promise<ReplayCluster> {
  const running = replays.get(file) ?? startReplayCluster(file);
  replays.set(file, running);
  return running;
}

/** Where a store's requests go: what the environment names, or `target` (the replay self-test sets it). */
export interface TargetChoice {
  record?: { to: string; of: 'stand-in' | string };
  replay?: string;
}

export interface EsSubject {
  store: ElasticsearchAdStore;
  writer: ElasticsearchAdStoreWriter;
  /** Another writer of the same store (another replica), with these options instead of the first writer's. */
  otherWriter(options?: BulkOptions): ElasticsearchAdStoreWriter;
  /** Specification and rule errors of every request sent, and of the stand-in's answers. */
  violations(): string[];
  /** Every request the target received. */
  requests(): SeenRequest[];
  /** The structured log lines of the writers (the offline load's). */
  logs: Record<string, unknown>[];
  prefix: string;
  client: Client;
  close(): Promise<void>;
}

/** Removes every index and index template of a prefix, by explicit names (clusters refuse wildcard deletes). */
export async function dropPrefix(client: Client, prefix: string): Promise<void> {
  const indices = Object.keys(await client.indices.get({ index: `${prefix}-*`, ignore_unavailable: true, allow_no_indices: true, expand_wildcards: ['open', 'closed'], features: ['aliases'] }));
  if (indices.length) await client.indices.delete({ index: indices });
  const templates = await client.indices.getIndexTemplate({ name: `${prefix}-*` }, { ignore: [404] });
  for (const { name } of templates.index_templates ?? []) await client.indices.deleteIndexTemplate({ name }, { ignore: [404] });
}

export async function openEsSubject(options: BulkOptions = {}, choice: TargetChoice = {}): Promise<EsSubject> {
  let server: StandInCluster;
  /** A stand-in behind the recording proxy (the replay self-test: no real cluster to record here). */
  let behind: StandInCluster | undefined;
  const replay = choice.replay ?? replayFile();
  if (choice.record) {
    behind = choice.record.of === 'stand-in' ? await startStandInCluster({ memory: true }) : undefined;
    server = await startRecordingProxy(behind?.url ?? choice.record.of, choice.record.to);
  } else if (replay) {
    const running = await replayOf(replay);
    // Shared by every store of the run: closed when the process ends, not with the store.
    server = { ...running, violations: running.violations, close: async () => undefined };
  } else if (ES_URL && ES_RECORD) {
    mkdirSync(ES_RECORD, { recursive: true });
    const file = recordingIn(ES_RECORD);
    // A run replaces the spec's earlier recording (every store of the run appends to it).
    if (!started.has(file)) writeFileSync(file, '');
    started.add(file);
    server = await startRecordingProxy(ES_URL, file);
  } else if (ES_URL) server = { url: ES_URL, requests: [], violations: [], close: async () => undefined };
  else server = await startStandInCluster({ memory: true });
  const prefix = `t-${randomBytes(4).toString('hex')}`;
  const client = createElasticsearchClient(elasticsearchSettingsFrom({ ...process.env, ES_URL: server.url, ES_INDEX_PREFIX: prefix, ES_REPLICAS: ES_URL ? process.env['ES_REPLICAS'] : 0 }));
  const logs: Record<string, unknown>[] = [];
  const writerOptions = (other: BulkOptions): BulkOptions => ({ backoff: { retries: 2, baseMs: 10, maxMs: 50 }, taskPollMs: 10, log: (fields) => logs.push(fields), ...other });
  const writer = new ElasticsearchAdStoreWriter(client, prefix, false, writerOptions(options));
  return {
    store: new ElasticsearchAdStore(client, prefix),
    writer,
    otherWriter: (other = options) => new ElasticsearchAdStoreWriter(client, prefix, false, writerOptions(other)),
    violations: () => [...server.violations, ...(behind?.violations ?? [])],
    requests: () => [...server.requests],
    logs,
    prefix,
    client,
    async close() {
      try {
        await dropPrefix(client, prefix);
      } finally {
        await client.close();
        await server.close();
        await behind?.close();
      }
    },
  };
}

/** A store of the target loaded offline with `records`, then fed live (the change feed's suites); fails on any violation. */
export async function openLoadedLiveStore(
  records: AdRecord[],
  options: BulkOptions = {},
  choice: TargetChoice = {},
): Promise<LiveStoreUnderTest & { subject: EsSubject }> {
  const subject = await openEsSubject(options, choice);
  const loaded = await subject.writer.write(records);
  if (loaded.rejected.length) throw new Error(`fixture rows refused: ${JSON.stringify(loaded.rejected)}`);
  await subject.writer.finish();
  return {
    subject,
    store: subject.store,
    apply: async (batch) => {
      const result = await subject.writer.apply(batch);
      if (result.rejected.length) throw new Error(`live rows refused: ${JSON.stringify(result.rejected)}`);
    },
    close: async () => {
      const violations = subject.violations();
      await subject.close();
      expect(violations).toEqual([]);
    },
  };
}
