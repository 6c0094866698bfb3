import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { parseAdLine } from '../ingest/ingest';
import { DataWindowService } from '../paging/data-window.service';
import { type AdRecord, LIVE_WRITER_FACTORY, type LiveWriter, type LiveWriterFactory } from '../store/ad-store.port';
import { entryTime, IngestStreamRepository, type Sighting } from './ingest-stream.repository';
import { LiveMedia } from './live-media';
import { LiveMetrics, type RejectStage, type SightingOutcome } from './live-metrics';
import type { LiveSettings } from './live-settings';

export const LIVE_SETTINGS = Symbol('LIVE_SETTINGS');
/** Lines validated between two turns of the event loop, so a large batch never holds up the queries being served. */
const PARSE_SLICE = 250;

/** What one batch did, per sighting: the store's outcomes plus the lines moved to the dead-letter stream. */
export interface BatchSummary {
  readonly entries: number;
  readonly outcomes: Record<SightingOutcome, number>;
  readonly rejected: Record<RejectStage, number>;
}

/**
 * The live door's logic: a batch of stream entries becomes one `apply` on the store; bad lines go to the dead-letter
 * stream with their reason; every entry is acked only after the store has applied the batch (and the bad ones are
 * parked), so a crash anywhere before the ack re-delivers the whole batch, which the store applies as "unchanged".
 */
@Injectable()
export class LiveIngestService {
  private readonly logger = new Logger('LiveIngest');
  private writer?: LiveWriter;

  constructor(
    @Inject(LIVE_SETTINGS) private readonly settings: LiveSettings,
    private readonly repository: IngestStreamRepository,
    @Inject(LIVE_WRITER_FACTORY) private readonly openWriter: LiveWriterFactory,
    private readonly metrics: LiveMetrics,
    private readonly dataWindow: DataWindowService,
    private readonly media: LiveMedia,
  ) {}

  async handle(batch: readonly Sighting[]): Promise<BatchSummary> {
    const started = performance.now();
    const rejected: Record<RejectStage, number> = { parse: 0, store: 0 };
    // The last sighting of an id in the batch wins, as it would had they come in separate batches.
    const latest = new Map<string, { sighting: Sighting; record: AdRecord }>();
    let parsed = 0;
    for (const [index, sighting] of batch.entries()) {
      if (index > 0 && index % PARSE_SLICE === 0) await nextTurn();
      const result = sighting.line === null ? null : parseAdLine(sighting.line, 0);
      if (result && 'record' in result) {
        parsed++;
        latest.delete(result.record.id);
        latest.set(result.record.id, { sighting, record: result.record });
        continue;
      }
      rejected.parse++;
      await this.park(sighting, result ? result.rejected.reason : 'the entry has no `line` field');
    }
    const outcomes: Record<SightingOutcome, number> = { added: 0, replaced: 0, unchanged: 0, superseded: parsed - latest.size };
    // Media the store does not hold yet is rendered or fetched first; a line whose media cannot be had is parked.
    const withMedia = latest.size > 0 ? await this.media.resolve([...latest.values()].map((item) => item.record)) : { records: [], rejected: [] };
    for (const row of withMedia.rejected) {
      const item = row.id === null ? undefined : latest.get(row.id);
      if (!item) continue;
      rejected.store++;
      await this.park(item.sighting, row.reason);
    }
    if (withMedia.records.length > 0) {
      // When apply resolves this process's readers see the batch (LiveWriter): the next batch is read after that.
      this.writer ??= this.openWriter();
      const applied = await this.writer.apply(withMedia.records);
      outcomes.added = applied.added;
      outcomes.replaced = applied.replaced;
      outcomes.unchanged = applied.unchanged;
      for (const row of applied.rejected) {
        const item = row.id === null ? undefined : latest.get(row.id);
        if (!item) continue;
        rejected.store++;
        await this.park(item.sighting, row.reason);
      }
      if (applied.added + applied.replaced > 0) this.dataWindow.invalidate();
    }
    await this.repository.ack(
      this.settings.group,
      batch.map((sighting) => sighting.entry),
    );
    const entryTimes = batch.map((sighting) => entryTime(sighting.entry));
    this.dataWindow.noteApplied(Math.max(...entryTimes));
    this.metrics.recordBatch(outcomes, rejected, (performance.now() - started) / 1000, entryTimes);
    return { entries: batch.length, outcomes, rejected };
  }

  private async park(sighting: Sighting, reason: string): Promise<void> {
    const parked = await this.repository.park(this.settings.group, sighting, reason);
    if (parked) this.logger.warn({ msg: 'moved a live line to the dead-letter stream', entry_id: sighting.entry, reason });
  }

  /**
   * One maintenance pass: trims the entries every group has acknowledged (never one a group still needs), and
   * refreshes the stream gauges (this group's depth and lag, the stream's length).
   */
  async maintain(): Promise<void> {
    const groups = await this.repository.groups();
    const mine = groups.find((group) => group.name === this.settings.group);
    const oldestNeeded = await this.repository.oldestNeeded(groups);
    if (oldestNeeded) await this.repository.trimBefore(oldestNeeded);
    let depth = 0;
    let lagSeconds = 0;
    if (mine) {
      depth = mine.pending + (mine.lag ?? 0);
      const oldestUnapplied =
        mine.pending > 0
          ? await this.repository.oldestPending(mine.name)
          : mine.lag === 0
            ? null
            : await this.repository.entryAfter(mine.lastDelivered);
      if (oldestUnapplied) lagSeconds = Math.max(0, Date.now() - entryTime(oldestUnapplied)) / 1000;
      else if (mine.lastDelivered !== '0-0') this.dataWindow.noteApplied(entryTime(mine.lastDelivered));
    }
    this.metrics.recordStream({ depth, lagSeconds, length: await this.repository.length(), maxLength: this.settings.maxLen });
  }

  async close(): Promise<void> {
    await this.writer?.close();
    this.writer = undefined;
  }
}
