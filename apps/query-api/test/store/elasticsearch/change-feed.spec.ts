/**
 * The change feed (issue 36) on the Elasticsearch engine: the shared contract suite and the equivalence property
 * (test/store/change-feed.contract.ts), the retention window and reloads. They run against the cluster at ES_URL when
 * it is set, or a recording of one (ES_REPLAY, or a committed recording), else against the stand-in cluster in memory
 * mode, a double for a real cluster (es-target.ts): no Elasticsearch can run on the build machines. Every request the engine sends is checked against the specification
 * and the rules on the way, and a test fails on any violation.
 */
import type { AdRecord } from '../../../src/store/ad-store.port';
import type { BulkOptions } from '../../../src/store/elasticsearch/elasticsearch-ad-store-writer';
import { describeChangeFeedContract, describeChangeFeedEquivalence, feedSince, positionOf } from '../change-feed.contract';
import { FIXTURE_RECORDS } from '../store-fixture';
import { openLoadedLiveStore, replayFile, targetName } from './es-target';

const TARGET = targetName();

const openElasticsearch = (records: AdRecord[], options: BulkOptions = {}) => openLoadedLiveStore(records, options);

describeChangeFeedContract(`elasticsearch on ${TARGET}`, (records) => openElasticsearch(records));
describeChangeFeedEquivalence(`elasticsearch on ${TARGET}`, (records) => openElasticsearch(records), { ads: 600, batches: 30 });

describe(`Elasticsearch change feed on ${TARGET}`, () => {
  it('keeps the retention window: a watermark from before a batch older than the window is expired', async () => {
    let now = Date.now() - 31 * 24 * 3_600_000;
    const subject = await openElasticsearch(FIXTURE_RECORDS, { feedRetentionDays: 30, now: () => now });
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await subject.apply([{ ...base, id: 'ad_old' }]);
      const between = await positionOf(subject.store);
      now = Date.now();
      await subject.apply([{ ...base, id: 'ad_recent' }]);
      expect((await subject.subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('expired');
      expect(await feedSince(subject.store, between)).toEqual([['ad_recent', 'new']]);
    } finally {
      await subject.close();
    }
  });

  it('renews the lease of a long batch before it runs low, and publishes', async () => {
    // A lease clock that moves 20 s at every look: the batch is past half its lease before its entities.
    let t = Date.now();
    const subject = await openElasticsearch(FIXTURE_RECORDS, { leaseClock: () => (t += 20_000) });
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await subject.apply([{ ...base, id: 'ad_slow' }]);
      const positionWrites = subject.subject.requests().filter((r) => r.endpoint === 'index' && r.path.endsWith('/_doc/position'));
      // Reset by the load, taken, renewed once, published.
      expect(positionWrites).toHaveLength(4);
      expect(await feedSince(subject.store, since)).toEqual([['ad_slow', 'new']]);
    } finally {
      await subject.close();
    }
  });

  it('a batch whose lease runs out before its writes fails as unavailable, writes no ad, and hands the lease back', async () => {
    let t = Date.now();
    const subject = await openElasticsearch(FIXTURE_RECORDS, { leaseClock: () => (t += 120_000) });
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await expect(subject.apply([{ ...base, id: 'ad_late' }])).rejects.toMatchObject({ code: 'unavailable' });
      expect(subject.subject.requests().filter((r) => r.endpoint === 'bulk' && JSON.stringify(r.body).includes('ad_late'))).toEqual([]);
      expect(await feedSince(subject.store, since)).toEqual([]);
      // Handed back at once: another writer applies without waiting the lease out.
      const result = await subject.subject.otherWriter({}).apply([{ ...base, id: 'ad_late' }]);
      expect(result.added).toBe(1);
      expect(await feedSince(subject.store, since)).toEqual([['ad_late', 'new']]);
    } finally {
      await subject.close();
    }
  });

  it('starts over with a reload: a watermark of the data before it is foreign', async () => {
    const subject = await openElasticsearch(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      await subject.subject.writer.clear();
      await subject.subject.writer.write(FIXTURE_RECORDS);
      await subject.subject.writer.finish();
      expect((await subject.subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('foreign');
    } finally {
      await subject.close();
    }
  });

  // Two writers interleave as timing has it: a replay (which answers requests in their recorded order) cannot follow.
  (replayFile() ? it.skip : it)('applies the batches of two writers one at a time: positions never repeat and every change is in the feed', async () => {
    const subject = await openElasticsearch(FIXTURE_RECORDS);
    const other = subject.subject.otherWriter();
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await Promise.all([subject.apply([{ ...base, id: 'ad_w1' }]), other.apply([{ ...base, id: 'ad_w2' }])]);
      const after = await positionOf(subject.store);
      expect(after.seq).toBe(since.seq + 2);
      expect(new Map(await feedSince(subject.store, since))).toEqual(new Map([['ad_w1', 'new'], ['ad_w2', 'new']]));
    } finally {
      await subject.close();
    }
  });
});
