/**
 * The recording proxy (es-server.ts) in front of the stand-in cluster, since no real Elasticsearch runs here: the
 * real client's requests pass through it checked, and each request/answer pair lands in the recording.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElasticsearchAdStore } from '../../../../src/store/elasticsearch/elasticsearch-ad-store';
import { createElasticsearchClient, elasticsearchSettingsFrom } from '../../../../src/store/elasticsearch/es-client';
import { startRecordingProxy, startStandInCluster } from './es-server';

it('forwards, checks and records every request with its answer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'es-record-'));
  const file = join(dir, 'recording.ndjson');
  const cluster = await startStandInCluster();
  const proxy = await startRecordingProxy(cluster.url, file);
  const client = createElasticsearchClient(elasticsearchSettingsFrom({ ES_URL: proxy.url, ES_INDEX_PREFIX: 'adi' }));
  try {
    const store = new ElasticsearchAdStore(client, 'adi');
    const page = await store.searchAds({ filter: { country: 'US' }, sort: 'date', order: 'desc', limit: 2 });
    expect(page.rows).toHaveLength(2);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: { path: string; body: unknown }; status: number; response: unknown });
    // The feed's position first (none yet: 404, an answer like any other), then the page.
    expect(lines.map((l) => [l.request.path, l.status])).toEqual([
      ['/adi-feed/_doc/position', 404],
      ['/adi-ads/_search', 200],
    ]);
    expect(lines[1]?.response).toMatchObject({ hits: { hits: expect.any(Array) } });
    expect([...proxy.violations, ...cluster.violations]).toEqual([]);
  } finally {
    await client.close();
    await proxy.close();
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
