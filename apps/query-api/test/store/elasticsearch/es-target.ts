/**
 * Where the Elasticsearch engine's result tests run. With ES_URL set: the real cluster there (through the recording
 * proxy when ES_RECORD=<file.ndjson> is set too, which checks and records every request with its answer). Without it:
 * the stand-in cluster in memory mode (spec/es-memory.ts), a DOUBLE for a real cluster, which cannot run on the build
 * machines: the engine's logic is checked against our reading of Elasticsearch's documented behaviour, every request
 * against the specification and the rules. Each store gets its own index prefix and removes what it created.
 */
import { randomBytes } from 'node:crypto';
import { ElasticsearchAdStore } from '../../../src/store/elasticsearch/elasticsearch-ad-store';
import { type BulkOptions, ElasticsearchAdStoreWriter } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import { createElasticsearchClient, elasticsearchSettingsFrom } from '../../../src/store/elasticsearch/es-client';
import { indexNames } from '../../../src/store/elasticsearch/index-names';
import { indexTemplates } from '../../../src/store/elasticsearch/mappings';
import { startRecordingProxy, startStandInCluster, type StandInCluster } from './spec/es-server';

export const ES_URL = process.env['ES_URL'];
export const ES_RECORD = process.env['ES_RECORD'];
/** Said in test names, so a run's output shows what the engine ran against. */
export const TARGET = ES_URL ? `the cluster at ES_URL${ES_RECORD ? ', recorded' : ''}` : 'the stand-in cluster (a double: no Elasticsearch runs here)';

export interface EsSubject {
  store: ElasticsearchAdStore;
  writer: ElasticsearchAdStoreWriter;
  /** Another writer of the same store (another replica). */
  otherWriter(): ElasticsearchAdStoreWriter;
  /** Specification and rule errors of every request sent, and of the stand-in's answers. */
  violations(): string[];
  close(): Promise<void>;
}

export async function openEsSubject(options: BulkOptions = {}): Promise<EsSubject> {
  let server: StandInCluster;
  if (ES_URL) server = ES_RECORD ? await startRecordingProxy(ES_URL, ES_RECORD) : { url: ES_URL, requests: [], violations: [], close: async () => undefined };
  else server = await startStandInCluster({ memory: true });
  const prefix = `t-${randomBytes(4).toString('hex')}`;
  const client = createElasticsearchClient(elasticsearchSettingsFrom({ ...process.env, ES_URL: server.url, ES_INDEX_PREFIX: prefix, ES_REPLICAS: ES_URL ? process.env['ES_REPLICAS'] : 0 }));
  const writer = new ElasticsearchAdStoreWriter(client, prefix, false, { backoff: { retries: 2, baseMs: 10, maxMs: 50 }, ...options });
  await writer.clear();
  return {
    store: new ElasticsearchAdStore(client, prefix),
    writer,
    otherWriter: () => new ElasticsearchAdStoreWriter(client, prefix, false, { backoff: { retries: 2, baseMs: 10, maxMs: 50 }, ...options }),
    violations: () => [...server.violations],
    async close() {
      try {
        await writer.clear();
        for (const template of indexTemplates(indexNames(prefix))) await client.indices.deleteIndexTemplate({ name: template.name }, { ignore: [404] });
      } finally {
        await client.close();
        await server.close();
      }
    },
  };
}
