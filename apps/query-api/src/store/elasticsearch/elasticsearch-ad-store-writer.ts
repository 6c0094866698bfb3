import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, errors, type estypes } from '@elastic/elasticsearch';
import { ServiceError } from '@adintel/contracts';
import type { AdRecord, AdStoreWriter, ApplyResult, RejectedRow, WriteResult } from '../ad-store.port';
import { type AdDocument, toAdDocument } from './ad-document';
import { DAY_MS, type FeedPosition, type FeedStep, published, withFeed } from './change-feed';
import { sendBulk } from './bulk-sender';
import { createElasticsearchClient, DEFAULT_LAYOUT, type ElasticsearchSettings, type IndexLayout, toServiceError } from './es-client';
import { ENTITY_KINDS, type EntityKind, indexNames, type IndexNames, newGeneration } from './index-names';
import { adsTemplate, entityTemplates, putMappingRequests } from './mappings';
import type { BackoffPolicy, BulkItemFailure } from './queries/bulk.query';
import type { EntityDocument } from './queries/entities.query';
import {
  copyMonthRequest,
  generationTemplatesRequest,
  monthOf,
  servedIndices,
  type StoreIndices,
  storeIndicesRequest,
  switchRequest,
  unservedGenerations,
} from './queries/generations.query';
import {
  DAY_PAGE,
  type DataDayAggs,
  dataDayFrom,
  dataDayRequest,
  dayPassedRequest,
  feedIndexRequest,
  positionFrom,
  positionGetRequest,
  type PositionVersion,
  positionVersionOf,
  positionWriteRequest,
} from './queries/feed.query';
import {
  adIndexActions,
  type BatchPlan,
  chunks,
  deleteActions,
  entityActions,
  type EntityKeys,
  planBatch,
  type StoredCopy,
  storedAdsRequest,
  storedCopiesFrom,
} from './queries/live.query';
import {
  entityDocumentFrom,
  onPointInTime,
  rebuildPointInTimeRequest,
  type RollupAggs,
  rollupPageFrom,
  rollupPageRequest,
} from './queries/rollups.query';

const TOLERANT = { ignore_unavailable: true, allow_no_indices: true } as const;

export interface BulkOptions {
  /** Bytes per bulk request (default 5 MB). */
  flushBytes?: number;
  /** Bulk requests in flight (default 2: this machine has 2 cores shared with the cluster). */
  concurrency?: number;
  /** Retries of 429s on the live path (default DEFAULT_BACKOFF of queries/bulk.query.ts). */
  backoff?: BackoffPolicy;
  /** Shards and replicas of the indices created from now on (ES_ADS_SHARDS, ES_REPLICAS). */
  layout?: IndexLayout;
  /** Pause of the offline load's bulk helper before retrying 429s (default 1 s). */
  offlineRetryWaitMs?: number;
  /** Days the change feed answers back (FEED_RETENTION_DAYS, default 30). */
  feedRetentionDays?: number;
  /** The clock of the feed's times (tests age a batch with it). */
  now?: () => number;
  /** The clock of the feed's lease (tests move it past a renewal or past the lease). */
  leaseClock?: () => number;
  /** Structured log lines of the offline load (default: one JSON line on stderr, beside the CLI's own lines). */
  log?: (fields: Record<string, unknown>) => void;
  /** Pause between two looks at a running copy task (default 1 s). */
  taskPollMs?: number;
}

const stderrLog = (fields: Record<string, unknown>): void => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), context: 'ElasticsearchLoad', ...fields })}\n`);
};

const DEFAULT_RETENTION_DAYS = 30;
/**
 * How long a writer holds the feed's lease (one batch at a time, see apply), and how long another waits for it before
 * its batch fails as unavailable (the live door applies it again later). A writer that crashed holding it delays the
 * others by at most this much. A batch sends no write once its lease has run out (assertLease).
 */
const LEASE_MS = 120_000;

/**
 * A taken lease: the position it was taken on, the version of the position document that holds it (renewed in place),
 * and the generation served (that of the feed index holding the position): the batch writes its ads into its months.
 */
interface Lease {
  position: FeedPosition;
  generation: string;
  version: PositionVersion;
  until: number;
}

/** Renew the lease when less than this is left: a long batch (a day's passing over many ads) keeps it. */
const RENEW_BELOW_MS = LEASE_MS / 2;

/** Retries of the offline load's per-item 429s by the client's bulk helper. */
const OFFLINE_RETRIES = 6;

/** An ad ES refused, with its id and the reason, as the ingest summary and the live path report them. */
const refusedRow = (id: string | null, status: number, reason: string): RejectedRow => ({
  line: 0,
  id,
  reason: `Elasticsearch refused the ad (${status}) ${reason}`,
});

function rejectedRowFrom(drop: {
  status: number;
  error: { type?: string; reason?: string | null } | null;
  document: Partial<AdDocument>;
}): RejectedRow {
  const reason = drop.error ? `${drop.error.type ?? 'error'}: ${drop.error.reason ?? 'no reason given'}` : 'rejected';
  return refusedRow(drop.document.id ?? null, drop.status, reason);
}

/** Counts what a batch did; an ad refused by ES counts as rejected only, whatever it would have been. */
function tally(plan: BatchPlan, refused: readonly BulkItemFailure[]): ApplyResult {
  const refusedIds = new Set(refused.map((failure) => failure.action.id));
  const result: ApplyResult = {
    added: 0,
    replaced: 0,
    unchanged: 0,
    rejected: [...plan.rejected, ...refused.map((failure) => refusedRow(failure.action.id, failure.status, failure.reason))],
  };
  for (const [id, outcomes] of plan.outcomes) {
    if (!refusedIds.has(id)) for (const outcome of outcomes) result[outcome]++;
  }
  return result;
}

/**
 * Writes ads into the monthly indices with `client.helpers.bulk`. The helper retries only per-item 429s;
 * every other failed item reaches `onDrop` and is counted and reported, never lost silently. An item still
 * throttled after every retry is no fault of the data: the load stops as `unavailable` instead of reporting
 * it as a rejected row (its ad would be missing from the store while the summary blamed the line).
 */
async function bulkIndexAds(
  client: Client,
  names: IndexNames,
  records: readonly AdRecord[] | AsyncIterable<AdRecord>,
  options: BulkOptions = {},
): Promise<WriteResult> {
  const rejected: RejectedRow[] = [];
  let throttled = 0;
  const documents = toDocuments(records, rejected);
  let written: number;
  try {
    const helper = client.helpers.bulk<AdDocument>({
      datasource: documents,
      onDocument: (doc) => ({ index: { _index: names.adsIndexFor(doc.first_seen_date), _id: doc.id } }),
      onDrop: (drop) => {
        if (drop.status === 429) {
          throttled++;
          void helper.abort(); // the helper itself is awaited below, and ends once aborted
        } else rejected.push(rejectedRowFrom(drop));
      },
      flushBytes: options.flushBytes ?? 5_000_000,
      concurrency: options.concurrency ?? 2,
      retries: OFFLINE_RETRIES,
      wait: options.offlineRetryWaitMs ?? 1_000,
    });
    written = (await helper).successful;
  } catch (error) {
    throw toServiceError(error, 'bulk ingest');
  }
  if (throttled) {
    throw ServiceError.of('unavailable', `Elasticsearch kept refusing the load (429) after ${OFFLINE_RETRIES} retries: ${throttled} ads not stored, load stopped`);
  }
  return { written, rejected };
}

/** Records that cannot become a document (no valid first_seen_date, so no monthly index) are rejected here. */
async function* toDocuments(
  records: readonly AdRecord[] | AsyncIterable<AdRecord>,
  rejected: RejectedRow[],
): AsyncGenerator<AdDocument> {
  for await (const record of records) {
    try {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(record.first_seen_date)) throw new Error('first_seen_date must be YYYY-MM-DD');
      yield toAdDocument(record);
    } catch (error) {
      rejected.push({ line: 0, id: record.id ?? null, reason: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** A new generation's name, later than any this process gave (two loads within one millisecond stay apart). */
let lastGeneration = 0n;
function nextGeneration(): string {
  const next = BigInt(newGeneration());
  lastGeneration = next > lastGeneration ? next : lastGeneration + 1n;
  return lastGeneration.toString();
}

/** Index names per delete request: a request line stays far below http.max_initial_line_length (4 kB). */
const DELETE_CHUNK = 40;

/**
 * The writing side of the Elasticsearch engine: the offline load (seed, ingest: clear/write/finish) and the live path
 * (apply). An offline load builds a new generation beside the served one and switches every alias to it in one
 * request when it is complete (ADR 0012); the live path writes into the served generation.
 */
export class ElasticsearchAdStoreWriter implements AdStoreWriter {
  private readonly names: IndexNames;
  private readonly layout: IndexLayout;
  /** Lease owners of loads found stopped (their generation removed): a lease one of them holds is taken over at once. */
  private readonly stoppedLoads = new Set<string>();
  /** The generation whose ad template this writer has put (installServedTemplate). */
  private servedTemplate: string | undefined;
  /** The generation the offline load under way builds (null: no load, or it finished). */
  private load: IndexNames | null = null;
  private readonly log: (fields: Record<string, unknown>) => void;
  private templatesInstalled = false;
  private entityIndicesReady = false;
  private feedIndexReady = false;
  /** Names this writer in the feed's lease. */
  private readonly owner = randomBytes(6).toString('hex');
  private readonly now: () => number;
  private readonly leaseClock: () => number;
  private readonly retentionMs: number;

  constructor(
    private readonly client: Client,
    indexPrefix: string,
    private readonly ownsClient = false,
    private readonly options: BulkOptions = {},
  ) {
    this.names = indexNames(indexPrefix);
    this.layout = options.layout ?? DEFAULT_LAYOUT;
    this.now = options.now ?? Date.now;
    this.leaseClock = options.leaseClock ?? Date.now;
    this.log = options.log ?? stderrLog;
    this.retentionMs = (options.feedRetentionDays ?? (Number(process.env['FEED_RETENTION_DAYS']) || DEFAULT_RETENTION_DAYS)) * DAY_MS;
  }

  static fromSettings(settings: ElasticsearchSettings, options: BulkOptions = {}): ElasticsearchAdStoreWriter {
    return new ElasticsearchAdStoreWriter(createElasticsearchClient(settings), settings.indexPrefix, true, { layout: settings.layout, ...options });
  }

  async size(): Promise<number> {
    const response = await this.call('count', () => this.client.count({ index: this.names.ads, ...TOLERANT }));
    return response.count;
  }

  /** Starts an empty load: nothing served is touched until finish() switches to it. */
  async clear(): Promise<void> {
    if (this.load) await this.discard(this.load, 'cleared before it finished');
    this.load = await this.begin(false);
  }

  /** Writes into the load's generation (a load not started by clear() starts as a copy of the served ads). */
  async write(batch: readonly AdRecord[] | AsyncIterable<AdRecord>): Promise<WriteResult> {
    return bulkIndexAds(this.client, await this.loading(), batch, this.options);
  }

  /**
   * Completes the load and serves it: makes its ads visible, builds every entity rollup and the change feed's new
   * position in its generation, then moves every alias to it in one `_aliases` request and deletes the generation it
   * replaced. A live batch under way is waited for (the feed's lease): none straddles the switch.
   */
  async finish(): Promise<void> {
    const load = await this.loading();
    await this.call('refresh', () => this.client.indices.refresh({ index: load.adsPattern, ...TOLERANT }));
    // Every kind from the same point in time of the ads; an empty store has none to open (no index yet).
    const opened = await this.call('open point in time', () => this.client.openPointInTime(rebuildPointInTimeRequest(load.adsPattern), { ignore: [404] }));
    const pit = { id: opened.id as string | undefined };
    try {
      for (const kind of ENTITY_KINDS) await this.rebuild(load, kind, pit);
    } finally {
      if (pit.id) {
        const id = pit.id;
        await this.call('close point in time', () => this.client.closePointInTime({ id }, { ignore: [404] }));
      }
    }
    await this.startFeed(load);
    // From the switch on, a month the live path creates in this generation joins the read alias.
    await this.call('install index template', () => this.client.indices.putIndexTemplate(adsTemplate(load, this.layout, true)));
    const months = Object.keys(await this.call('list indices', () => this.client.indices.get({ index: load.adsPattern, ...TOLERANT, features: ['aliases'] })));
    // Named after the load: should it die holding the lease, the next load knows the holder is gone (removeUnserved).
    const lease = await this.acquireLease(false, `load-${load.generation}`);
    const store = await this.storeIndices();
    const served = Object.fromEntries(servedIndices(this.names, store).map((index) => [index, store[index] ?? {}]));
    try {
      await this.call('switch aliases', () => this.client.indices.updateAliases(switchRequest(load, months, served)));
    } catch (error) {
      if (lease) await this.release(lease);
      throw error;
    }
    this.load = null;
    this.entityIndicesReady = false;
    this.feedIndexReady = false;
    const replaced = Object.keys(served).filter((index) => index !== this.names.feed && this.names.generationOf(index) !== load.generation);
    this.log({ event: 'load_switched', generation: load.generation, ad_indices: months, replaced });
    // The replaced generation's templates, and the single ad template of the layout before generations.
    const generations = new Set(replaced.map((index) => this.names.generationOf(index)).filter((g): g is string => g !== undefined));
    await this.deleteGeneration(replaced, [...[...generations].map((g) => this.names.inGeneration(g).adsTemplate), this.names.adsTemplate]);
  }

  private async loading(): Promise<IndexNames> {
    this.load ??= await this.begin(true);
    return this.load;
  }

  /**
   * Starts a load: removes what stopped loads left (saying so), installs the new generation's ad template without the
   * read alias (its months stay out of the readers' sight until the switch) and, for a load that adds to the store (an
   * ingest without clear), copies the served ads into it first.
   */
  private async begin(copy: boolean): Promise<IndexNames> {
    await this.installTemplates();
    const store = await this.storeIndices();
    await this.removeUnserved(store);
    const load = this.names.inGeneration(nextGeneration());
    await this.call('install index template', () => this.client.indices.putIndexTemplate(adsTemplate(load, this.layout, false)));
    this.log({ event: 'load_started', generation: load.generation, starts_from: copy ? 'a copy of the served ads' : 'an empty store' });
    if (copy) await this.copyServed(load, store);
    return load;
  }

  /** Copies each served monthly ad index into the same month of the load's generation (one reindex task each). */
  private async copyServed(load: IndexNames, store: StoreIndices): Promise<void> {
    for (const [source, info] of Object.entries(store)) {
      const month = monthOf(source);
      if (!month || !(this.names.ads in (info.aliases ?? {}))) continue;
      const target = load.adsIndexFor(`${month.replace('.', '-')}-01`);
      const started = await this.call('copy served ads', () => this.client.reindex(copyMonthRequest(source, target)));
      if (started.task === undefined) throw ServiceError.of('internal', `Elasticsearch started no task to copy ${source}`);
      await this.waitForTask(String(started.task), `copy ${source} into ${target}`);
    }
  }

  private async waitForTask(taskId: string, operation: string): Promise<void> {
    for (;;) {
      const status = await this.call(operation, () => this.client.tasks.get({ task_id: taskId }));
      if (status.completed) {
        const failures = (status.response as { failures?: unknown[] } | undefined)?.failures ?? [];
        if (status.error || failures.length) {
          throw ServiceError.of('internal', `Elasticsearch could not ${operation}: ${JSON.stringify(status.error ?? failures[0])}`);
        }
        return;
      }
      await sleep(this.options.taskPollMs ?? 1_000);
    }
  }

  /** Every index of every generation of this prefix, with its aliases. */
  private async storeIndices(): Promise<StoreIndices> {
    return (await this.call('list indices', () => this.client.indices.get(storeIndicesRequest(this.names)))) as StoreIndices;
  }

  /**
   * A load killed before its switch left a generation nobody serves (and one killed between its switch and its
   * cleanup, the generation it replaced): each is named in a log line and deleted. The served generation is untouched.
   */
  private async removeUnserved(store: StoreIndices): Promise<void> {
    const answer = await this.call('list index templates', () => this.client.indices.getIndexTemplate(generationTemplatesRequest(this.names), { ignore: [404] }));
    const templates = (answer.index_templates ?? []).map((template) => template.name);
    const served = servedIndices(this.names, store).map((index) => this.names.generationOf(index)).find((g) => g !== undefined) ?? '';
    for (const [generation, left] of unservedGenerations(this.names, store, templates)) {
      this.log({
        event: 'unserved_generation_removed',
        generation,
        served_generation: served || null,
        left_by: generation > served ? 'a load stopped before its switch' : 'a load stopped after its switch, before deleting the generation it replaced',
        indices: left.indices,
        templates: left.templates,
      });
      await this.deleteGeneration(left.indices, left.templates);
      this.stoppedLoads.add(`load-${generation}`);
    }
  }

  /** A load that will not finish (cleared again, or ended by a failure): its generation goes. */
  private async discard(load: IndexNames, why: string): Promise<void> {
    const patterns = [load.adsPattern, ...ENTITY_KINDS.map((kind) => load.entityGeneration(kind, load.generation)), load.feedIndex];
    const indices = Object.keys(await this.call('list indices', () => this.client.indices.get({ index: patterns, ...TOLERANT, features: ['aliases'] })));
    this.log({ event: 'load_discarded', generation: load.generation, why, indices });
    await this.deleteGeneration(indices, [load.adsTemplate]);
    this.load = null;
  }

  /** Deleting by explicit names: clusters refuse wildcard deletes (action.destructive_requires_name). */
  private async deleteGeneration(indices: readonly string[], templates: readonly string[]): Promise<void> {
    for (const chunk of chunks(indices, DELETE_CHUNK)) await this.call('delete indices', () => this.client.indices.delete({ index: chunk, ignore_unavailable: true }));
    for (const name of templates) await this.call('delete index template', () => this.client.indices.deleteIndexTemplate({ name }, { ignore: [404] }));
  }

  /**
   * The live path, in proportion to the batch, one batch at a time across writers (the change feed's lease): one
   * search classifies the batch against the stored copies of its ids; the changed ads are bulk-indexed with their feed
   * fields (429s retried with backoff, visible when each bulk returns), copies left in another month deleted, the ads
   * the batch's new day moved past given their `ended` entry; then only the entities the batch touched are recomputed
   * from their ads and upserted into the current generation; last, the batch's position is published. See the README
   * ("Live data", "Change feed") for the guarantees and their limits.
   */
  async apply(batch: readonly AdRecord[]): Promise<ApplyResult> {
    await this.installTemplates();
    await this.ensureEntityIndices();
    await this.ensureFeedIndex();
    const lease = await this.takeLease();
    try {
      await this.installServedTemplate(lease.generation);
      const result = await this.applyHolding(lease, batch);
      await this.publish(lease, result.step);
      return result.tally;
    } catch (error) {
      await this.release(lease);
      throw error;
    }
  }

  private async applyHolding(lease: Lease, batch: readonly AdRecord[]): Promise<{ tally: ApplyResult; step: FeedStep }> {
    const ids = [...new Set(batch.map((record) => record.id))];
    const stored = new Map<string, StoredCopy[]>();
    for (const chunk of chunks(ids)) {
      const response = await this.call('read stored ads', () => this.client.search<AdDocument>(storedAdsRequest(this.names.ads, chunk)));
      for (const [id, copies] of storedCopiesFrom(response)) stored.set(id, copies);
    }
    const oldDay = lease.position.day;
    const newDay = batch.reduce((day, record) => (/^\d{4}-\d{2}-\d{2}$/.test(record.last_seen_date) && record.last_seen_date > day ? record.last_seen_date : day), oldDay);
    const step: FeedStep = { seq: lease.position.seq + 1, at: new Date(this.now()).toISOString(), oldDay, newDay, from: lease.position.from };
    const plan = planBatch(this.names.inGeneration(lease.generation), batch, stored, step);

    // `wait_for`: each bulk returns once its writes are searchable (no refresh call of its own: Elastic advises
    // against them on a write path). A 409 is a newer sighting already held (adIndexActions): nothing to write.
    this.assertLease(lease);
    const refused = await sendBulk(this.client, adIndexActions(plan.toIndex), {
      operation: 'live bulk index',
      policy: this.options.backoff,
      tolerated: [409],
    });
    const refusedIds = new Set(refused.map((failure) => failure.action.id));
    // A moved ad's old copy goes only once its new version is written: a refused write keeps the old one readable.
    const stale = deleteActions(plan.stale.filter((copy) => !refusedIds.has(copy.id)));
    const staleFailures = await sendBulk(this.client, stale, { operation: 'delete moved ads', policy: this.options.backoff });
    if (staleFailures.length) throw this.refusedError('delete moved ads', staleFailures);
    if (oldDay && newDay > oldDay) await this.endPassedAds(lease, step, plan.versioned);

    await this.renewLease(lease);
    await this.upsertEntities(plan.touched);
    return { tally: tally(plan, refused), step };
  }

  /**
   * The ads the batch's new day moved past end without a sighting: each gets its feed entry, written over the stored
   * version with the same external version (its last sighting), so a newer sighting written meanwhile wins (409).
   */
  private async endPassedAds(lease: Lease, step: FeedStep, inBatch: ReadonlySet<string>): Promise<void> {
    let afterId: string | undefined;
    for (;;) {
      const request = dayPassedRequest(this.names.ads, step.oldDay, step.newDay, afterId);
      const hits = (await this.call('read ads the day passed', () => this.client.search<AdDocument>(request))).hits.hits;
      const ended: StoredCopy[] = [];
      for (const hit of hits) {
        if (hit._source && !inBatch.has(hit._source.id)) ended.push({ index: hit._index, doc: withFeed(hit._source, hit._source, step) });
      }
      await this.renewLease(lease);
      const failures = await sendBulk(this.client, adIndexActions(ended), { operation: 'end ads the day passed', policy: this.options.backoff, tolerated: [409] });
      if (failures.length) throw this.refusedError('end ads the day passed', failures);
      const last = hits.at(-1)?._source?.id;
      if (last === undefined || hits.length < DAY_PAGE) return;
      afterId = last;
    }
  }

  /**
   * Live batches are applied one at a time across replicas: each takes the lease on the feed's position document
   * (a conditional write, if_seq_no/if_primary_term), writes its ads with the next position, and publishes that
   * position with the same condition. So the watermark a reader gets never names a batch still being written, and the
   * positions of an ad's changes follow the order its batches were applied (ADR 0010, "Change feed").
   */
  private async takeLease(): Promise<Lease> {
    const lease = await this.acquireLease(true);
    if (!lease) throw ServiceError.of('internal', 'no change feed position to take');
    return lease;
  }

  /**
   * `bootstrap`: a store without a position gets one (the live path); otherwise there is nothing to take (an offline
   * switch on a store nobody serves yet). The generation served is that of the feed index holding the position.
   */
  private async acquireLease(bootstrap: boolean, owner = this.owner): Promise<Lease | undefined> {
    const giveUpAt = this.leaseClock() + LEASE_MS;
    for (;;) {
      const held = positionFrom(await this.call('read feed position', () => this.client.get<FeedPosition>(positionGetRequest(this.names.feed), { ignore: [404] })));
      const until = this.leaseClock() + LEASE_MS;
      const lease = { owner, until };
      let position: FeedPosition;
      let version: PositionVersion;
      if (!held) {
        if (!bootstrap) return undefined;
        // A store loaded before the feed existed (or never loaded): its position starts here, at the data's day.
        const day = dataDayFrom(await this.call('read data day', () => this.client.search<unknown, DataDayAggs>(dataDayRequest(this.names.ads))));
        position = { store: `live-${this.leaseClock()}-${this.owner}`, seq: 0, from: 0, day, marks: [], lease };
        version = 'absent';
      } else if (held.position.lease && held.position.lease.until > this.leaseClock() && !this.stoppedLoads.has(held.position.lease.owner)) {
        if (this.leaseClock() > giveUpAt) throw ServiceError.of('unavailable', 'another writer has held the change feed for too long: the batch waits for the next try');
        await sleep(100 + Math.floor(Math.random() * 200));
        continue;
      } else {
        position = { ...held.position, lease };
        version = held.version;
      }
      try {
        const written = await this.client.index(positionWriteRequest(this.names.feed, position, version));
        return { position, version: positionVersionOf(written), until, generation: this.names.generationOf(written._index) ?? '' };
      } catch (error) {
        if (!(error instanceof errors.ResponseError && error.statusCode === 409)) throw toServiceError(error, 'take feed lease');
      }
    }
  }

  /**
   * Extends the lease by another LEASE_MS when half of it is gone, with the same condition as every write of the
   * position: a writer that lost it (it ran out and another took it) fails here instead of writing on.
   */
  private async renewLease(lease: Lease): Promise<void> {
    this.assertLease(lease);
    if (lease.until - this.leaseClock() > RENEW_BELOW_MS) return;
    const until = this.leaseClock() + LEASE_MS;
    const position = { ...lease.position, lease: { owner: this.owner, until } };
    const written = await this.call('renew feed lease', () => this.client.index(positionWriteRequest(this.names.feed, position, lease.version)));
    lease.version = positionVersionOf(written);
    lease.position = position;
    lease.until = until;
  }

  /** A writer paused past its lease (GC, network) sends nothing more: another may be applying the same position. */
  private assertLease(lease: Lease): void {
    if (this.leaseClock() > lease.until - 5_000) throw ServiceError.of('unavailable', 'the change feed lease ran out during the batch: it is applied again');
  }

  private async publish(lease: Lease, step: FeedStep): Promise<void> {
    this.assertLease(lease);
    const next = published(lease.position, step.seq, step.newDay, this.now(), this.retentionMs);
    await this.call('publish feed position', () => this.client.index(positionWriteRequest(this.names.feed, next, lease.version)));
  }

  /** A failed batch hands the lease back at once (the position unchanged), so the next writer need not wait it out. */
  private async release(lease: Lease): Promise<void> {
    const position = { ...lease.position, lease: null };
    await this.client.index(positionWriteRequest(this.names.feed, position, lease.version)).catch(() => undefined);
  }

  /**
   * The live path on a store no offline load made: generation `0` is served from the first batch (its feed index
   * behind the feed alias, its ad template with the read alias); an offline load replaces it like any other. A replica
   * that loses the race to create it gets a 400 and uses the winner's; so does a store of the layout before
   * generations (its concrete feed index holds the alias's name).
   */
  /**
   * The served generation's ad template, put once per generation by each writer, as the entity templates are: a month
   * the live path creates after a release that changed the mapping gets the new one (installTemplates).
   */
  private async installServedTemplate(generation: string): Promise<void> {
    if (this.servedTemplate === generation) return;
    await this.call('install index template', () => this.client.indices.putIndexTemplate(adsTemplate(this.names.inGeneration(generation), this.layout, true)));
    this.servedTemplate = generation;
  }

  private async ensureFeedIndex(): Promise<void> {
    if (this.feedIndexReady) return;
    const served = await this.call('get alias', () => this.client.indices.getAlias({ name: this.names.feed }, { ignore: [404] }));
    if (!Object.keys(served).some((index) => index.startsWith(`${this.names.feed}-`))) {
      const zero = this.names.inGeneration('0');
      await this.call('install index template', () => this.client.indices.putIndexTemplate(adsTemplate(zero, this.layout, true)));
      await this.call('create feed index', () => this.client.indices.create(feedIndexRequest(zero.feedIndex, this.layout.replicas, this.names.feed), { ignore: [400] }));
    }
    this.feedIndexReady = true;
  }

  /** A load is a new store: its position starts at 0 on its own data's day, and watermarks of the one it replaces are foreign. */
  private async startFeed(load: IndexNames): Promise<void> {
    await this.call('create feed index', () => this.client.indices.create(feedIndexRequest(load.feedIndex, this.layout.replicas)));
    const day = dataDayFrom(await this.call('read data day', () => this.client.search<unknown, DataDayAggs>(dataDayRequest(load.adsPattern))));
    const position: FeedPosition = { store: `load-${load.generation}`, seq: 0, from: 0, day, marks: [], lease: null };
    await this.call('start feed position', () => this.client.index(positionWriteRequest(load.feedIndex, position, 'any')));
  }

  /** Recomputes the touched entities of each kind from their ads, upserts them and deletes those left without ads. */
  private async upsertEntities(touched: EntityKeys): Promise<void> {
    // Taken after this batch's ads were visible (bulk `wait_for`): a recomputation with a later version sees them (live.query.ts).
    const version = Date.now();
    for (const kind of ENTITY_KINDS) {
      const ids = touched[kind];
      if (!ids.length) continue;
      const documents: EntityDocument<unknown>[] = [];
      for (const chunk of chunks(ids)) {
        for await (const doc of this.rollupDocuments(kind, chunk)) documents.push(doc);
      }
      const found = new Set(documents.map((doc) => doc.id));
      const alias = this.names.entity(kind);
      const actions = entityActions(alias, documents, ids.filter((id) => !found.has(id)), version);
      const failures = await sendBulk(this.client, actions, { operation: `upsert ${kind}`, policy: this.options.backoff, tolerated: [409] });
      if (failures.length) {
        // The next batch checks the entity aliases again (they may have been removed under this writer).
        this.entityIndicesReady = false;
        throw this.refusedError(`upsert ${kind}`, failures);
      }
    }
  }

  /**
   * The live path writes into the current generation through its alias. Before the first offline load there is
   * none: generation `0` is created with the alias (a replica that loses the race to create it gets a 400 and uses
   * the winner's). finish() replaces it like any other generation.
   */
  private async ensureEntityIndices(): Promise<void> {
    if (this.entityIndicesReady) return;
    for (const kind of ENTITY_KINDS) {
      const alias = this.names.entity(kind);
      const current = await this.call('get alias', () => this.client.indices.getAlias({ name: alias }, { ignore: [404] }));
      const generationPrefix = this.names.entityGeneration(kind, '');
      if (Object.keys(current).some((index) => index.startsWith(generationPrefix))) continue;
      await this.call('create index', () =>
        this.client.indices.create({ index: this.names.entityGeneration(kind, '0'), aliases: { [alias]: {} } }, { ignore: [400] }),
      );
    }
    this.entityIndicesReady = true;
  }

  /** Refused entity writes or old-copy deletes are our fault, not the data's: the batch fails and is applied again. */
  private refusedError(operation: string, failures: BulkItemFailure[]): ServiceError {
    const first = failures[0];
    return ServiceError.of('internal', `Elasticsearch refused ${failures.length} actions on ${operation}, e.g. ${first?.action.id}: ${first?.reason}`);
  }

  /** A load still under way here did not finish (its caller failed): its generation goes; the served one was never touched. */
  async close(): Promise<void> {
    try {
      if (this.load) await this.discard(this.load, 'the load ended before it finished');
    } finally {
      if (this.ownsClient) await this.client.close();
    }
  }

  /** Builds a kind's rollups into the load's generation. `pit.id`: the point in time to read from; each page's answer may renew it. */
  private async rebuild(load: IndexNames, kind: EntityKind, pit: { id: string | undefined }): Promise<void> {
    const target = load.entityGeneration(kind, load.generation);
    await this.call('create index', () => this.client.indices.create({ index: target }));
    const rejected: RejectedRow[] = [];
    await this.call(`rollup ${kind}`, () =>
      this.client.helpers.bulk<EntityDocument<unknown>>({
        datasource: this.rollupDocuments(kind, undefined, pit, load.adsPattern),
        onDocument: (doc) => ({ index: { _index: target, _id: doc.id } }),
        onDrop: (drop) => rejected.push({ line: 0, id: drop.document.id, reason: drop.error?.reason ?? 'rejected' }),
        refreshOnCompletion: target,
        concurrency: 1,
      }),
    );
    if (rejected.length) {
      throw new Error(`${rejected.length} ${kind} rollup records were refused, e.g. ${rejected[0]?.id}: ${rejected[0]?.reason}`);
    }
  }

  /** `ads`: the ads to roll up (the served ones through the read alias, or a load's generation). */
  private async *rollupDocuments(kind: EntityKind, ids?: readonly string[], pit?: { id: string | undefined }, ads = this.names.ads): AsyncGenerator<EntityDocument<unknown>> {
    let after: estypes.AggregationsCompositeAggregateKey | undefined;
    do {
      const walk = rollupPageRequest(ads, kind, after, ids);
      const request = pit?.id ? onPointInTime(walk, pit.id) : walk;
      const response = await this.call(`rollup ${kind}`, () => this.client.search<unknown, RollupAggs>(request));
      if (pit && response.pit_id) pit.id = response.pit_id;
      const page = rollupPageFrom(response);
      for (const bucket of page.buckets) yield entityDocumentFrom(kind, bucket);
      after = page.after;
    } while (after);
  }

  private async installTemplates(): Promise<void> {
    if (this.templatesInstalled) return;
    // The ad templates belong to each generation (begin, finish, ensureFeedIndex).
    for (const template of entityTemplates(this.names, this.layout)) {
      await this.call('install index template', () => this.client.indices.putIndexTemplate(template));
    }
    // Templates apply at index creation only: a mapping change must reach the months (and generations) already created,
    // or `dynamic: strict` would refuse every re-sighting of an older ad carrying the new field.
    for (const request of putMappingRequests(this.names)) {
      await this.call('update mappings', () => this.client.indices.putMapping(request));
    }
    this.templatesInstalled = true;
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toServiceError(error, operation);
    }
  }
}
