import { isDeepStrictEqual } from 'node:util';
import type { estypes } from '@elastic/elasticsearch';
import type { AdRecord, RejectedRow } from '../../ad-store.port';
import { keepingStoredMedia } from '../../record-media';
import { type AdDocument, toAdDocument } from '../ad-document';
import { type FeedStep, withFeed, withoutFeed } from '../change-feed';
import { ENTITY_KINDS, type EntityKind, type IndexNames } from '../index-names';
import { TOLERATE_NO_INDEX } from './ads.query';
import type { BulkAction } from './bulk.query';
import type { EntityDocument } from './entities.query';
import { ROLLUP_KEY } from './rollups.query';

/**
 * The live path's requests (AdStoreWriter.apply): what the store holds for a batch's ids, how each record
 * compares with it, and the bulk actions that follow. Pure: the writer sends them.
 */

/** Ids per request: terms and ids lists stay far below index.max_terms_count (65,536) and max_result_window. */
export const LIVE_CHUNK = 1_000;

export function chunks<T>(items: readonly T[], size = LIVE_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Every stored copy of these ads, whatever monthly index holds them (a search on the read alias: `mget` cannot
 * read an alias over many indices). Each apply refreshes before it returns, so the previous batches are visible.
 * Twice as many hits as ids: a copy left behind in an older month (a crash between writing a moved ad and deleting
 * its old copy) must be seen to be removed.
 */
export function storedAdsRequest(index: string, ids: readonly string[]): estypes.SearchRequest {
  return { index, ...TOLERATE_NO_INDEX, query: { ids: { values: [...ids] } }, size: ids.length * 2, track_total_hits: false };
}

/** A stored ad document and the monthly index that holds it. */
export interface StoredCopy {
  index: string;
  doc: AdDocument;
}

export function storedCopiesFrom(response: estypes.SearchResponse<AdDocument>): Map<string, StoredCopy[]> {
  const copies = new Map<string, StoredCopy[]>();
  for (const hit of response.hits.hits) {
    if (!hit._id || !hit._source) continue;
    copies.set(hit._id, [...(copies.get(hit._id) ?? []), { index: hit._index, doc: hit._source }]);
  }
  return copies;
}

export type EntityKeys = Record<EntityKind, string[]>;

/** What applying a batch takes, decided from the batch and what the store holds. */
export interface BatchPlan {
  /** The last valid version of each id that differs from the stored one, to index into its month. */
  toIndex: StoredCopy[];
  /** Copies in another month than the id's current version (its first_seen_date moved): deleted once it is written. */
  stale: { index: string; id: string }[];
  /** How each valid record of the batch compared with the version before it (stored, or earlier in the batch), by id. */
  outcomes: Map<string, Outcome[]>;
  /** Records that cannot become a document (no valid first_seen_date, so no monthly index). */
  rejected: RejectedRow[];
  /**
   * The entities to recompute: those of every valid record and of every stored copy of its id (an ad that moved
   * from one advertiser, domain or month to another changes both). Unchanged records count too: their entities are
   * recomputed (an identical result rewrites nothing visible), so a batch redelivered after a crash between
   * writing its ads and writing its entities repairs those entities.
   */
  touched: EntityKeys;
  /** Ids whose version this batch decides (not those whose sighting was older than the one held). */
  versioned: Set<string>;
}

export type Outcome = 'added' | 'replaced' | 'unchanged';

/** The stored copy with the latest last_seen_date (a copy left in an older month may be older). */
const newest = (copies: readonly StoredCopy[]) =>
  copies.reduce<StoredCopy | undefined>((best, c) => (!best || c.doc.last_seen_date > best.doc.last_seen_date ? c : best), undefined);

/** The document as Elasticsearch hands it back (JSON: no undefined fields), to compare with a stored `_source`. */
const asStored = (doc: AdDocument): AdDocument => JSON.parse(JSON.stringify(doc)) as AdDocument;

/**
 * Classifies a batch against the store, in batch order: a record is `added` when its id is new, `replaced` when it
 * differs from the version before it, `unchanged` when identical. An id seen twice in a batch is written once, in its
 * last version (as if the records were applied one by one).
 *
 * A sighting older than the version held (an earlier last_seen_date) changes nothing and counts as `unchanged`:
 * replicas share the stream, so a batch left pending by a replica that died can be applied after newer sightings
 * of the same ads were; it must not take them back. Same day: the later record wins.
 */
export function planBatch(
  names: IndexNames,
  batch: readonly AdRecord[],
  stored: ReadonlyMap<string, StoredCopy[]>,
  feed?: FeedStep,
): BatchPlan {
  const rejected: RejectedRow[] = [];
  const outcomes = new Map<string, Outcome[]>();
  const latest = new Map<string, StoredCopy>();
  const touched = new Map<EntityKind, Set<string>>(ENTITY_KINDS.map((kind) => [kind, new Set<string>()]));
  const touch = (doc: AdDocument) => {
    for (const kind of ENTITY_KINDS) {
      const key = doc[ROLLUP_KEY[kind]];
      if (key) touched.get(kind)?.add(key);
    }
  };

  for (const record of batch) {
    const copies = stored.get(record.id) ?? [];
    const held = latest.get(record.id) ?? newest(copies);
    // A re-sighting keeps the stored file of every media URL the held version has one for (media/stored-media.ts).
    const media = held ? keepingStoredMedia(record.media, held.doc.media ?? []) : record.media;
    let copy: StoredCopy;
    try {
      copy = { index: names.adsIndexFor(record.first_seen_date), doc: asStored(toAdDocument(media === record.media ? record : { ...record, media })) };
    } catch (error) {
      rejected.push({ line: 0, id: record.id ?? null, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const id = copy.doc.id;
    touch(copy.doc);
    for (const old of copies) touch(old.doc);
    if (held && held.doc.last_seen_date > copy.doc.last_seen_date) {
      outcomes.set(id, [...(outcomes.get(id) ?? []), 'unchanged']);
      continue;
    }
    const before = latest.get(id) ?? copies.find((c) => c.index === copy.index) ?? copies[0];
    const same = before && before.index === copy.index && isDeepStrictEqual(withoutFeed(before.doc), copy.doc);
    const outcome: Outcome = !before ? 'added' : same ? 'unchanged' : 'replaced';
    outcomes.set(id, [...(outcomes.get(id) ?? []), outcome]);
    latest.set(id, copy);
  }

  const toIndex: StoredCopy[] = [];
  const stale: BatchPlan['stale'] = [];
  for (const [id, latestCopy] of latest) {
    const copies = stored.get(id) ?? [];
    // The feed compares what the store held before the batch with the batch's last version of the ad (change-feed.ts).
    const current = feed ? { ...latestCopy, doc: asStored(withFeed(latestCopy.doc, newest(copies)?.doc, feed)) } : latestCopy;
    const same = copies.find((c) => c.index === current.index);
    if (!same || !isDeepStrictEqual(same.doc, current.doc)) toIndex.push(current);
    for (const old of copies) if (old.index !== current.index) stale.push({ index: old.index, id });
  }
  const keys = Object.fromEntries(ENTITY_KINDS.map((kind) => [kind, [...(touched.get(kind) ?? [])].sort()])) as EntityKeys;
  return { toIndex, stale, outcomes, rejected, touched: keys, versioned: new Set(latest.keys()) };
}

/**
 * Index each changed ad into the monthly index of its first_seen_date (`_id` = ad id), versioned by its
 * last_seen_date (epoch ms, `external_gte`): two replicas applying different sightings of one ad at once cannot
 * leave the older one in place, since Elasticsearch refuses (409) a version below the one it holds, in the same
 * step as the write. That is the optimistic concurrency the sighting order needs, without the read-modify-write
 * round of `if_seq_no`/`if_primary_term`. Same day: equal versions, the later write wins (README, "Live data").
 */
export function adIndexActions(toIndex: readonly StoredCopy[]): BulkAction[] {
  return toIndex.map(({ index, doc }) => ({
    action: { index: { _index: index, _id: doc.id, version: sightingVersion(doc.last_seen_date), version_type: 'external_gte' } },
    document: doc,
    id: doc.id,
  }));
}

export const sightingVersion = (lastSeenDate: string): number => Date.parse(`${lastSeenDate}T00:00:00Z`);

export function deleteActions(copies: readonly { index: string; id: string }[]): BulkAction[] {
  return copies.map(({ index, id }) => ({ action: { delete: { _index: index, _id: id } }, id }));
}

/**
 * Upserts of recomputed entity records into the current generation (through its alias), and deletes of the
 * touched entities that no ad belongs to any more. `version` is the time the recomputation started, as an external
 * version: when two writers recompute the same entity, the one that started later saw every ad the earlier one saw
 * (each refreshes its ads before taking the time), and Elasticsearch refuses the older result with 409 instead of
 * letting it overwrite the newer. `require_alias`: should the alias be gone (the indices cleared under a running
 * writer), the write fails instead of creating a concrete index by the alias's name without the entity mapping.
 */
export function entityActions(alias: string, documents: readonly EntityDocument<unknown>[], gone: readonly string[], version: number): BulkAction[] {
  const versioned = { version, version_type: 'external_gte' as const };
  return [
    ...documents.map((doc) => ({ action: { index: { _index: alias, _id: doc.id, ...versioned, require_alias: true } }, document: doc, id: doc.id })),
    ...gone.map((id) => ({ action: { delete: { _index: alias, _id: id, ...versioned } }, id })),
  ];
}
