/**
 * Record and replay, tested with a recording made in this very run. No real Elasticsearch cluster exists on the build
 * machines, so no recording of one exists to commit yet (docs/operations.md says how a platform team makes one).
 * First the change feed's contract suite runs through the recording proxy in front of the stand-in cluster's memory
 * mode (a double); then the same suite runs against the replay of that recording with nothing behind it: the replay
 * must answer every request from the recording and use all of it, and a run that asks anything else fails naming
 * the request. Committed recordings of a real cluster replay the same way (ES_REPLAY, es-target.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElasticsearchAdStore } from '../../../../src/store/elasticsearch/elasticsearch-ad-store';
import { createElasticsearchClient, elasticsearchSettingsFrom } from '../../../../src/store/elasticsearch/es-client';
import { describeChangeFeedContract } from '../../change-feed.contract';
import { openLoadedLiveStore, replayOf } from '../es-target';
import { type Exchange, startReplayCluster } from './es-server';

const dir = mkdtempSync(join(tmpdir(), 'es-replay-'));
const file = join(dir, 'change-feed.ndjson');
afterAll(async () => {
  await (await replayOf(file)).close();
  rmSync(dir, { recursive: true, force: true });
});

describeChangeFeedContract('elasticsearch, recorded (the proxy in front of the stand-in cluster)', (records) =>
  openLoadedLiveStore(records, {}, { record: { to: file, of: 'stand-in' } }),
);
describeChangeFeedContract('elasticsearch, replayed from that recording (nothing behind the replay)', (records) =>
  openLoadedLiveStore(records, {}, { replay: file }),
);

describe('replaying a recording', () => {
  it('answered every request of the second run from the recording, and used all of it', async () => {
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Exchange);
    expect(lines.length).toBeGreaterThan(100);
    const replay = await replayOf(file);
    expect(replay.misses).toEqual([]);
    expect(replay.remaining()).toBe(0);
    expect(replay.violations).toEqual([]);
  });

  it('fails a run that drifts from its recording, naming the request', async () => {
    const replay = await startReplayCluster(file);
    const client = createElasticsearchClient(elasticsearchSettingsFrom({ ES_URL: replay.url, ES_INDEX_PREFIX: 't-00000000' }));
    try {
      const store = new ElasticsearchAdStore(client, 't-00000000');
      // A filter no recorded search used.
      await expect(store.countAds({ country: 'ZZ' }, 10)).rejects.toMatchObject({ code: 'internal' });
      expect(replay.misses).toEqual([expect.stringContaining('POST /t-00000000-ads/_search {"query":{"bool":{"filter":[{"term":{"countries":"ZZ"}}]}}')]);
    } finally {
      await client.close();
      await replay.close();
    }
  });
});
