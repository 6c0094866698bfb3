import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';

/** The live door's metrics (listed in docs/live-data.md); query-api alone exports them, so they are defined here. */
export const LIVE_METRICS = {
  sightings: {
    name: 'adintel_ingest_sightings_total',
    help:
      "Live sightings applied, by outcome: 'added' (a new ad), 'replaced' (a re-sighting that changed the ad), 'unchanged' " +
      "(identical to the stored ad: a re-delivery), 'superseded' (a later sighting of the same ad in the same batch won)",
    labelNames: ['outcome'],
  },
  rejected: {
    name: 'adintel_ingest_rejected_total',
    help: "Live lines moved to the dead-letter stream, by stage: 'parse' (malformed or invalid line) or 'store' (the store refused it)",
    labelNames: ['stage'],
  },
  batchDuration: {
    name: 'adintel_ingest_batch_duration_seconds',
    help: 'Time to apply one batch of live sightings (parse, apply to the store, dead letters, ack)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  },
  batchSize: {
    name: 'adintel_ingest_batch_size',
    help: 'Stream entries per applied batch',
    buckets: [1, 10, 50, 100, 250, 500, 1_000, 2_000, 5_000, 10_000],
  },
  freshness: {
    name: 'adintel_ingest_freshness_seconds',
    help: 'Per sighting: from its XADD to the moment its batch was visible to readers',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300],
  },
  lag: {
    name: 'adintel_ingest_lag_seconds',
    help: 'Age of the oldest sighting this replica has not applied yet (now minus its XADD time); 0 when caught up',
  },
  lastApplied: {
    name: 'adintel_ingest_last_applied_timestamp_seconds',
    help: 'XADD time (Unix seconds) of the newest sighting this replica has applied',
  },
  depth: {
    name: 'adintel_ingest_stream_depth',
    help: "Entries of the stream this replica's group has not applied yet (not delivered plus delivered and not acked)",
  },
  length: {
    name: 'adintel_ingest_stream_length',
    help: 'Entries in the stream (XLEN), against the bound INGEST_STREAM_MAX_LEN at which producers are held back',
  },
  maxLength: {
    name: 'adintel_ingest_stream_max_length',
    help: 'The bound INGEST_STREAM_MAX_LEN',
  },
} as const;

export type SightingOutcome = 'added' | 'replaced' | 'unchanged' | 'superseded';
export type RejectStage = 'parse' | 'store';

export const LIVE_METRIC_PROVIDERS = [
  makeCounterProvider({ ...LIVE_METRICS.sightings, labelNames: [...LIVE_METRICS.sightings.labelNames] }),
  makeCounterProvider({ ...LIVE_METRICS.rejected, labelNames: [...LIVE_METRICS.rejected.labelNames] }),
  makeHistogramProvider({ ...LIVE_METRICS.batchDuration, buckets: [...LIVE_METRICS.batchDuration.buckets] }),
  makeHistogramProvider({ ...LIVE_METRICS.batchSize, buckets: [...LIVE_METRICS.batchSize.buckets] }),
  makeHistogramProvider({ ...LIVE_METRICS.freshness, buckets: [...LIVE_METRICS.freshness.buckets] }),
  makeGaugeProvider(LIVE_METRICS.lag),
  makeGaugeProvider(LIVE_METRICS.lastApplied),
  makeGaugeProvider(LIVE_METRICS.depth),
  makeGaugeProvider(LIVE_METRICS.length),
  makeGaugeProvider(LIVE_METRICS.maxLength),
];

/** What the live door records; each method feeds the metric families it names. */
@Injectable()
export class LiveMetrics {
  constructor(
    @InjectMetric(LIVE_METRICS.sightings.name) private readonly sightings: Counter<string>,
    @InjectMetric(LIVE_METRICS.rejected.name) private readonly rejected: Counter<string>,
    @InjectMetric(LIVE_METRICS.batchDuration.name) private readonly batchDuration: Histogram,
    @InjectMetric(LIVE_METRICS.batchSize.name) private readonly batchSize: Histogram,
    @InjectMetric(LIVE_METRICS.freshness.name) private readonly freshness: Histogram,
    @InjectMetric(LIVE_METRICS.lag.name) private readonly lag: Gauge,
    @InjectMetric(LIVE_METRICS.lastApplied.name) private readonly lastApplied: Gauge,
    @InjectMetric(LIVE_METRICS.depth.name) private readonly depth: Gauge,
    @InjectMetric(LIVE_METRICS.length.name) private readonly length: Gauge,
    @InjectMetric(LIVE_METRICS.maxLength.name) private readonly maxLength: Gauge,
  ) {}

  /** One applied batch: its counts, duration, size and each sighting's freshness (XADD times in ms). */
  recordBatch(
    outcomes: Record<SightingOutcome, number>,
    rejected: Record<RejectStage, number>,
    seconds: number,
    entryTimesMs: readonly number[],
  ): void {
    for (const [outcome, count] of Object.entries(outcomes)) if (count > 0) this.sightings.inc({ outcome }, count);
    for (const [stage, count] of Object.entries(rejected)) if (count > 0) this.rejected.inc({ stage }, count);
    this.batchDuration.observe(seconds);
    this.batchSize.observe(entryTimesMs.length);
    const now = Date.now();
    for (const at of entryTimesMs) this.freshness.observe(Math.max(0, now - at) / 1000);
    if (entryTimesMs.length) this.lastApplied.set(Math.max(...entryTimesMs) / 1000);
  }

  /** The stream's state as the last maintenance pass saw it. */
  recordStream(state: { depth: number; lagSeconds: number; length: number; maxLength: number }): void {
    this.depth.set(state.depth);
    this.lag.set(state.lagSeconds);
    this.length.set(state.length);
    this.maxLength.set(state.maxLength);
  }
}
