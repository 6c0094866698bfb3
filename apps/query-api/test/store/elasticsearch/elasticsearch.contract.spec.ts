/**
 * The shared AdStore contract suite against a REAL Elasticsearch 9 cluster. No Elasticsearch server can
 * run on the build machines, so this suite runs only when ES_URL is set (e.g.
 * `ES_URL=http://localhost:9200 npx jest -c apps/query-api/jest.config.cjs elasticsearch.contract`) and
 * is skipped otherwise, saying why. Each run uses its own index prefix and removes what it created.
 */
import { randomBytes } from 'node:crypto';
import { describeStoreContract } from '../store.contract';
import { ElasticsearchAdStore } from '../../../src/store/elasticsearch/elasticsearch-ad-store';
import { ElasticsearchAdStoreWriter } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import { createElasticsearchClient, elasticsearchSettingsFrom } from '../../../src/store/elasticsearch/es-client';
import { indexNames } from '../../../src/store/elasticsearch/index-names';
import { indexTemplates } from '../../../src/store/elasticsearch/mappings';

const esUrl = process.env['ES_URL'];

if (esUrl) {
  describeStoreContract('elasticsearch', async (records) => {
    const prefix = `contract-${randomBytes(4).toString('hex')}`;
    const settings = elasticsearchSettingsFrom({ ...process.env, ES_URL: esUrl, ES_INDEX_PREFIX: prefix });
    const client = createElasticsearchClient(settings);
    const writer = new ElasticsearchAdStoreWriter(client, prefix);
    await writer.clear();
    const result = await writer.write(records);
    if (result.rejected.length) throw new Error(`fixture rows refused: ${JSON.stringify(result.rejected)}`);
    await writer.finish();
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
  });
} else {
  describe.skip('AdStore contract: elasticsearch (skipped: ES_URL is not set, and no Elasticsearch server runs on this machine)', () => {
    it('runs the shared contract suite against the cluster at ES_URL', () => undefined);
  });
  process.stderr.write('AdStore contract suite for Elasticsearch skipped: set ES_URL to run it against a real cluster\n');
}
