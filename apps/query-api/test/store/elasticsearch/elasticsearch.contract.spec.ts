/**
 * The shared AdStore contract suite, and the live/offline equivalence check, against a REAL Elasticsearch 9 cluster.
 * No Elasticsearch server can run on the build machines, so this file runs only when ES_URL is set (e.g.
 * `ES_URL=http://localhost:9200 npx jest -c apps/query-api/jest.config.cjs elasticsearch.contract`) and is skipped
 * otherwise, saying why. Each store uses its own index prefix and removes what it created.
 * With ES_RECORD=<file.ndjson> too, every request goes through the recording proxy (spec/es-server.ts): checked
 * against the specification and the rules, and recorded with the cluster's answer.
 */
import { randomBytes } from 'node:crypto';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { describeStoreContract, type StoreUnderTest } from '../store.contract';
import { ElasticsearchAdStore } from '../../../src/store/elasticsearch/elasticsearch-ad-store';
import { ElasticsearchAdStoreWriter } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import { createElasticsearchClient, elasticsearchSettingsFrom } from '../../../src/store/elasticsearch/es-client';
import { indexNames } from '../../../src/store/elasticsearch/index-names';
import { indexTemplates } from '../../../src/store/elasticsearch/mappings';
import { expectSameAnswers, movingSightings } from './live-equivalence';
import { startRecordingProxy } from './spec/es-server';

const esUrl = process.env['ES_URL'];
const recordTo = process.env['ES_RECORD'];
const proxy = esUrl && recordTo ? startRecordingProxy(esUrl, recordTo) : undefined;
if (proxy) {
  afterAll(async () => {
    const running = await proxy;
    await running.close();
    expect(running.violations).toEqual([]);
  });
}

/** A fresh store under its own prefix, filled by `fill` through the writer. */
async function openStore(fill: (writer: ElasticsearchAdStoreWriter) => Promise<void>): Promise<StoreUnderTest> {
  const prefix = `contract-${randomBytes(4).toString('hex')}`;
  const url = proxy ? (await proxy).url : esUrl;
  const settings = elasticsearchSettingsFrom({ ...process.env, ES_URL: url, ES_INDEX_PREFIX: prefix });
  const client = createElasticsearchClient(settings);
  const writer = new ElasticsearchAdStoreWriter(client, prefix);
  await writer.clear();
  await fill(writer);
  return {
    store: new ElasticsearchAdStore(client, prefix),
    async close() {
      await writer.clear();
      for (const template of indexTemplates(indexNames(prefix))) {
        await client.indices.deleteIndexTemplate({ name: template.name }, { ignore: [404] });
      }
      await client.close();
    },
  };
}

const load = (records: readonly AdRecord[]) => async (writer: ElasticsearchAdStoreWriter) => {
  const result = await writer.write(records);
  if (result.rejected.length) throw new Error(`fixture rows refused: ${JSON.stringify(result.rejected)}`);
  await writer.finish();
};

const applyAll = (batches: readonly AdRecord[][]) => async (writer: ElasticsearchAdStoreWriter) => {
  for (const batch of batches) {
    const result = await writer.apply(batch);
    if (result.rejected.length) throw new Error(`live rows refused: ${JSON.stringify(result.rejected)}`);
  }
};

if (esUrl) {
  describeStoreContract('elasticsearch', (records) => openStore(load(records)));

  describe('live apply against the offline load: elasticsearch', () => {
    const sightings = movingSightings();
    const opened: StoreUnderTest[] = [];
    const open = async (fill: (writer: ElasticsearchAdStoreWriter) => Promise<void>) => {
      const subject = await openStore(fill);
      opened.push(subject);
      return subject.store;
    };
    afterAll(async () => {
      for (const subject of opened) await subject.close();
    });

    it('every batch applied live to an empty store answers every question as the final versions loaded offline', async () => {
      const offline = await open(load(sightings.final));
      const live = await open(applyAll(sightings.batches));
      await expectSameAnswers({ live, offline }, sightings.versions);
    }, 120_000);

    it('an offline first load followed by live batches answers the same', async () => {
      const [first = [], ...rest] = sightings.batches;
      const offline = await open(load(sightings.final));
      const live = await open(async (writer) => {
        await load(first)(writer);
        await applyAll(rest)(writer);
      });
      await expectSameAnswers({ live, offline }, sightings.versions);
    }, 120_000);
  });
} else {
  describe.skip('AdStore contract and live equivalence: elasticsearch (skipped: ES_URL is not set, and no Elasticsearch server runs on this machine)', () => {
    it('runs the shared contract suite and the live/offline equivalence check against the cluster at ES_URL', () => undefined);
  });
  process.stderr.write('AdStore contract suite and live equivalence for Elasticsearch skipped: set ES_URL to run them against a real cluster\n');
}
