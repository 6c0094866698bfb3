import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { WorkSource } from '@adintel/observability';
import { IngestStreamRepository } from './ingest-stream.repository';
import { LIVE_SETTINGS, LiveIngestService } from './live-ingest.service';
import type { LiveSettings } from './live-settings';

/** How long one read waits for new entries; bounds how late a stop or a claim pass is noticed. */
const BLOCK_MS = 1_000;
/** Pause after a failed read or batch before trying again (Redis or the store is down). */
const RETRY_MS = 1_000;
/** Stream gauges and trimming. */
const MAINTAIN_EVERY_MS = 1_000;
/** A consumer of a shared group silent this long with nothing pending is a replica that is gone: its name is removed. */
const FORGET_CONSUMER_AFTER_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The live door's read loop (the "handler": it knows the stream, the service knows what a batch means). Reads the
 * group in batches of up to INGEST_BATCH_MAX entries, hands each batch to the service and reads the next only once
 * it is applied and the readers have caught up with it (and, when a batch was not full, at least
 * INGEST_BATCH_INTERVAL_MS after it started), so a batch is what arrived while the previous one was being applied.
 * Order within the group is the stream's order: its own pending entries (a crash mid-batch) and entries claimed from
 * a dead consumer come first.
 */
@Injectable()
export class LiveConsumer implements OnApplicationBootstrap, OnApplicationShutdown, WorkSource {
  readonly name = 'live ingest';
  private readonly logger = new Logger('LiveIngest');
  private reader?: IngestStreamRepository;
  private loop?: Promise<void>;
  private stopping = false;
  private timers: NodeJS.Timeout[] = [];
  /** Read this consumer's pending entries (from `0`) before new ones: at start, after a claim and after a failure. */
  private ownPendingFirst = true;
  private claimDue = true;
  /** Create the group first (at start, and when Redis lost it). */
  private groupDue = true;
  private maintaining = false;
  private reading = false;

  constructor(
    @Inject(LIVE_SETTINGS) private readonly settings: LiveSettings,
    private readonly repository: IngestStreamRepository,
    private readonly service: LiveIngestService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.enabled) return;
    this.reader = this.repository.blockingReader();
    this.logger.log({
      msg: 'consuming live sightings',
      stream: this.settings.stream,
      group: this.settings.group,
      consumer: this.settings.consumer,
    });
    this.timers.push(setInterval(() => void this.maintain(), MAINTAIN_EVERY_MS));
    this.timers.push(setInterval(() => (this.claimDue = true), Math.max(1_000, Math.floor(this.settings.claimIdleMs / 2))));
    this.loop = this.readUntilStopped();
  }

  /**
   * Reads nothing more, lets the batch in hand finish (apply and ack), then returns. A read in progress is cut off by
   * dropping the reader's connection (also when Redis is away and the read is queued): entries it may have been handed
   * stay pending and are claimed at the next start.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    // A read in flight may already hold delivered entries (pending in the group): let it return (it blocks at most
    // BLOCK_MS) so that batch is applied and acked. Only a read still waiting past that (Redis away, the read queued)
    // loses its connection.
    const giveUp = this.reading ? setTimeout(() => this.reader?.disconnect(), BLOCK_MS + 500) : undefined;
    await this.loop;
    clearTimeout(giveUp);
    this.reader?.disconnect();
  }

  /** After the drain (main.ts stops this consumer first): the writer and the command connection close last. */
  async onApplicationShutdown(): Promise<void> {
    await this.stop();
    await this.service.close();
    await this.repository.close();
  }

  private async readUntilStopped(): Promise<void> {
    const reader = this.reader as IngestStreamRepository;
    const { group, consumer, batchMax } = this.settings;
    while (!this.stopping) {
      try {
        if (this.groupDue) {
          await this.repository.ensureGroup(group);
          this.groupDue = false;
        }
        if (this.claimDue) {
          this.claimDue = false;
          // An exclusive consumer takes every pending entry of its group at once: they are its own earlier run's.
          const minIdle = this.settings.exclusive ? 0 : this.settings.claimIdleMs;
          const claimed = await this.repository.claim(group, consumer, minIdle, batchMax);
          if (claimed) {
            this.logger.log({ msg: 'claimed pending live sightings', entries: claimed, min_idle_ms: minIdle });
            this.ownPendingFirst = true;
            this.claimDue = claimed >= batchMax;
          }
          await this.forgetGoneConsumers(this.settings.exclusive ? 0 : FORGET_CONSUMER_AFTER_MS);
        }
        this.reading = true;
        const started = performance.now();
        const batch = this.ownPendingFirst ? await reader.read(group, consumer, '0', batchMax, 0) : await reader.read(group, consumer, '>', batchMax, BLOCK_MS);
        this.reading = false;
        if (this.ownPendingFirst && batch.length === 0) this.ownPendingFirst = false;
        if (batch.length) await this.service.handle(batch);
        // A batch that was not full: wait out the interval, so the next one gathers what arrives meanwhile.
        const rest = this.settings.batchIntervalMs - (performance.now() - started);
        if (batch.length && batch.length < batchMax && rest > 0 && !this.stopping) await sleep(rest);
      } catch (error) {
        this.reading = false;
        if (this.stopping) break;
        const message = (error as Error).message;
        this.logger.warn({ msg: 'live ingest failed, retrying', error: message });
        if (message.includes('NOGROUP')) this.groupDue = true;
        this.ownPendingFirst = true;
        await sleep(RETRY_MS);
      }
    }
  }

  /** Earlier runs of this replica (and gone replicas of a shared group) leave consumer names behind: remove the empty ones. */
  private async forgetGoneConsumers(minIdleMs: number): Promise<void> {
    for (const other of await this.repository.consumers(this.settings.group)) {
      if (other.name !== this.settings.consumer && other.pending === 0 && other.idle >= minIdleMs) {
        await this.repository.deleteConsumer(this.settings.group, other.name);
      }
    }
  }

  private async maintain(): Promise<void> {
    if (this.maintaining || this.stopping) return;
    this.maintaining = true;
    try {
      await this.service.maintain();
    } catch (error) {
      this.logger.warn({ msg: 'live ingest maintenance failed', error: (error as Error).message });
    } finally {
      this.maintaining = false;
    }
  }
}
