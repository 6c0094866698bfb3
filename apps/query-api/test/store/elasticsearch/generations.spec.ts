/**
 * The offline load's generations (ADR 0012): a load builds a new generation beside the served one and switches every
 * alias to it in one `_aliases` request. Run against the cluster at ES_URL when set, else the stand-in cluster in
 * memory mode, a DOUBLE for a real cluster (no Elasticsearch can run on the build machines: es-target.ts); every
 * request is checked against the specification and the rules, and a test fails on any violation.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdRecord } from '../../../src/store/ad-store.port';
import type { FeedPosition } from '../../../src/store/elasticsearch/change-feed';
import { indexNames } from '../../../src/store/elasticsearch/index-names';
import { positionOf } from '../change-feed.contract';
import { FIXTURE_RECORDS } from '../store-fixture';
import { type EsSubject, openEsSubject, replayFile, targetName } from './es-target';

const TARGET = targetName();
const [A = [], B = [], C = []] = [FIXTURE_RECORDS.slice(0, 4), FIXTURE_RECORDS.slice(4, 7), FIXTURE_RECORDS.slice(7)];
const idsOf = (records: readonly AdRecord[]) => records.map((r) => r.id).sort();

/** The ids readers see through the read alias, and the indices that hold them. */
async function served(subject: EsSubject): Promise<{ ids: string[]; indices: string[] }> {
  await subject.client.indices.refresh({ index: `${subject.prefix}-ads`, ignore_unavailable: true, allow_no_indices: true });
  const answer = await subject.client.search<{ id: string }>({ index: `${subject.prefix}-ads`, ignore_unavailable: true, allow_no_indices: true, size: 100, query: { match_all: {} } });
  const hits = answer.hits.hits;
  return { ids: hits.map((hit) => hit._source?.id ?? '').sort(), indices: [...new Set(hits.map((hit) => hit._index))].sort() };
}

/** Every index of the prefix with its aliases. */
async function indicesOf(subject: EsSubject): Promise<Record<string, string[]>> {
  const answer = await subject.client.indices.get({ index: `${subject.prefix}-*`, ignore_unavailable: true, allow_no_indices: true, features: ['aliases'] });
  return Object.fromEntries(Object.entries(answer).map(([index, info]) => [index, Object.keys(info.aliases ?? {}).sort()]));
}

async function load(subject: EsSubject, records: readonly AdRecord[], options: { clear: boolean }): Promise<string> {
  if (options.clear) await subject.writer.clear();
  await subject.writer.write(records);
  await subject.writer.finish();
  return generationServed(subject);
}

const generationServed = async (subject: EsSubject): Promise<string> => {
  const feed = Object.entries(await indicesOf(subject)).find(([, aliases]) => aliases.includes(`${subject.prefix}-feed`))?.[0] ?? '';
  return indexNames(subject.prefix).generationOf(feed) ?? '';
};

async function withSubject(test: (subject: EsSubject) => Promise<void>): Promise<void> {
  const subject = await openEsSubject();
  try {
    await test(subject);
  } finally {
    const violations = subject.violations();
    await subject.close();
    expect(violations).toEqual([]);
  }
}

// Writers interleave and a load is dropped midway: a replay (recorded order) cannot follow.
(replayFile() ? describe.skip : describe)(`Elasticsearch offline load generations on ${TARGET}`, () => {
  it('readers see the served generation until finish(), then the whole new one at once; the old generation is deleted', async () => {
    await withSubject(async (subject) => {
      const first = await load(subject, A, { clear: true });
      expect((await served(subject)).ids).toEqual(idsOf(A));

      await subject.writer.clear();
      await subject.writer.write(B);
      // Written and refreshed, but in a generation nobody serves yet.
      await subject.client.indices.refresh({ index: `${subject.prefix}-ads-*` });
      expect((await served(subject)).ids).toEqual(idsOf(A));
      expect(await subject.writer.size()).toBe(A.length);

      await subject.writer.finish();
      const second = await generationServed(subject);
      expect(second > first).toBe(true);
      const after = await served(subject);
      expect(after.ids).toEqual(idsOf(B));
      expect(after.indices.every((index) => index.startsWith(`${subject.prefix}-ads-${second}-`))).toBe(true);
      // Every alias on the new generation, nothing of the old one left.
      const indices = await indicesOf(subject);
      expect(Object.keys(indices).filter((index) => index.includes(first))).toEqual([]);
      expect(indices[`${subject.prefix}-feed-${second}`]).toEqual([`${subject.prefix}-feed`]);
      for (const kind of ['advertisers', 'webmasters', 'creatives', 'domains', 'apps']) expect(indices[`${subject.prefix}-${kind}-${second}`]).toEqual([`${subject.prefix}-${kind}`]);
      expect(subject.logs.map((line) => line['event'])).toEqual(['load_started', 'load_switched', 'load_started', 'load_switched']);
    });
  });

  it('a load that adds to the store (no clear) starts from a copy of the served ads, without their change-feed fields', async () => {
    await withSubject(async (subject) => {
      await load(subject, A, { clear: true });
      const since = await positionOf(subject.store);
      await subject.writer.apply([{ ...(A[0] as AdRecord), title: 'A new title', last_seen_date: '2026-12-01' }]);
      await subject.writer.write(B);
      // The copy and the new ads are out of sight until the switch.
      expect((await served(subject)).ids).toEqual(idsOf(A));
      await subject.writer.finish();
      expect((await served(subject)).ids).toEqual(idsOf([...A, ...B]));
      const copied = await subject.client.search<Record<string, unknown>>({ index: `${subject.prefix}-ads`, query: { ids: { values: [A[0]?.id ?? ''] } } });
      expect(copied.hits.hits[0]?._source).toMatchObject({ title: 'A new title' });
      expect(copied.hits.hits[0]?._source).not.toHaveProperty('change_seq');
      // A new store: the watermark of the one it replaced is foreign (410, re-baseline).
      expect((await subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('foreign');
    });
  });

  it('a load dropped midway leaves the served generation untouched; the next load names what it left, deletes it and completes', async () => {
    await withSubject(async (subject) => {
      const first = await load(subject, A, { clear: true });
      const watermark = await positionOf(subject.store);
      // A writer that dies (no finish, no close) after writing its ads and part of its rollups.
      const dying = subject.otherWriter();
      await dying.clear();
      await dying.write(B);
      const stopped = Object.keys(await indicesOf(subject))
        .map((index) => indexNames(subject.prefix).generationOf(index))
        .find((g) => g !== undefined && g !== first);
      expect(stopped).toBeDefined();
      expect((await served(subject)).ids).toEqual(idsOf(A));
      expect(await generationServed(subject)).toBe(first);
      // The store serves on, live batches included: watermarks of the served store stay good.
      await subject.writer.apply([{ ...(A[1] as AdRecord), title: 'Still served', last_seen_date: '2026-12-01' }]);
      expect((await subject.store.adChanges({ filter: {}, since: watermark, limit: 5, countUpTo: 5 })).outcome).toBe('page');

      const next = subject.otherWriter();
      await next.clear();
      expect(subject.logs.find((line) => line['event'] === 'unserved_generation_removed')).toMatchObject({
        generation: stopped,
        served_generation: first,
        left_by: 'a load stopped before its switch',
        templates: [`${subject.prefix}-ads-${stopped}`],
      });
      expect(Object.keys(await indicesOf(subject)).filter((index) => index.includes(stopped ?? 'none'))).toEqual([]);
      await next.write(C);
      await next.finish();
      expect((await served(subject)).ids).toEqual(idsOf(C));
    });
  });

  it('finish() waits for a live batch under way (the feed lease) and switches only once it is published', async () => {
    await withSubject(async (subject) => {
      await load(subject, A, { clear: true });
      const feed = `${subject.prefix}-feed`;
      const position = async () => (await subject.client.get<FeedPosition>({ index: feed, id: 'position' }))._source as FeedPosition;
      // Another replica's batch is being applied: it holds the lease on the served position.
      await subject.client.index({ index: feed, id: 'position', document: { ...(await position()), lease: { owner: 'replica-2', until: Date.now() + 60_000 } } });
      const positionReads = () => subject.requests().filter((r) => r.endpoint === 'get' && r.path.endsWith('/_doc/position')).length;
      await subject.writer.clear();
      await subject.writer.write(B);
      const readsBefore = positionReads();
      let switched = false;
      const finishing = subject.writer.finish().then(() => {
        switched = true;
      });
      // finish() is looking at the lease again and again: it waits.
      for (let tries = 0; positionReads() < readsBefore + 3 && tries < 200; tries++) await sleep(50);
      expect(positionReads()).toBeGreaterThanOrEqual(readsBefore + 3);
      expect(switched).toBe(false);
      expect((await served(subject)).ids).toEqual(idsOf(A));
      // The batch publishes (its lease handed back): the load switches.
      await subject.client.index({ index: feed, id: 'position', document: { ...(await position()), lease: null } });
      await finishing;
      expect((await served(subject)).ids).toEqual(idsOf(B));
    });
  });

  it('a writer closed after a failed load discards its generation at once', async () => {
    await withSubject(async (subject) => {
      const first = await load(subject, A, { clear: true });
      const failing = subject.otherWriter();
      await failing.clear();
      await failing.write(B);
      await failing.close();
      expect(subject.logs.at(-1)).toMatchObject({ event: 'load_discarded', why: 'the load ended before it finished' });
      expect(Object.keys(await indicesOf(subject)).every((index) => index.includes(first))).toBe(true);
      expect((await served(subject)).ids).toEqual(idsOf(A));
    });
  });

  it('live batches after a switch land in the new generation (a new month joins the read alias), and watermarks of before are foreign', async () => {
    await withSubject(async (subject) => {
      // The service's live writer, open across the load (another process in production).
      const live = subject.otherWriter();
      await live.apply(A);
      const before = await positionOf(subject.store);
      const generation = await load(subject, B, { clear: true });
      const [ad = B[0] as AdRecord] = B;
      await live.apply([{ ...ad, id: 'ad_after_switch', first_seen_date: '2027-01-02', last_seen_date: '2027-01-03' }]);
      const after = await served(subject);
      expect(after.ids).toEqual(idsOf([...B, { ...ad, id: 'ad_after_switch' }]));
      expect(after.indices).toContain(`${subject.prefix}-ads-${generation}-2027.01`);
      expect(after.indices.every((index) => index.startsWith(`${subject.prefix}-ads-${generation}-`))).toBe(true);
      expect((await subject.store.adChanges({ filter: {}, since: before, limit: 5, countUpTo: 5 })).outcome).toBe('foreign');
      const since = await positionOf(subject.store);
      expect(since.store).toBe(`load-${generation}`);
    });
  });
});
