import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';
import { METRICS } from './metric-definitions';
import { httpMetrics } from './http-metrics';
import { recordTransportMessages } from './transport-metrics';

/** Runs `run` and reports how long it took and, when it threw, what (the error is rethrown). */
async function timed<T>(run: () => Promise<T>, record: (failure: { error: unknown } | undefined, seconds: number) => void): Promise<T> {
  const started = process.hrtime.bigint();
  let failure: { error: unknown } | undefined;
  try {
    return await run();
  } catch (error) {
    failure = { error };
    throw error;
  } finally {
    record(failure, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

/** What the apps record; each method names the one metric family it feeds (see METRICS). */
@Injectable()
export class AppMetrics implements OnModuleInit, OnModuleDestroy {
  private stopTransport?: () => void;

  constructor(
    @InjectMetric(METRICS.httpRequests.name) private readonly httpRequests: Counter<string>,
    @InjectMetric(METRICS.httpDuration.name) private readonly httpDuration: Histogram<string>,
    @InjectMetric(METRICS.toolCalls.name) private readonly toolCalls: Counter<string>,
    @InjectMetric(METRICS.toolDuration.name) private readonly toolDuration: Histogram<string>,
    @InjectMetric(METRICS.tokensCharged.name) private readonly tokensCharged: Counter<string>,
    @InjectMetric(METRICS.limitRefusals.name) private readonly limitRefusals: Counter<string>,
    @InjectMetric(METRICS.transportMessages.name) private readonly transportMessages: Counter<string>,
    @InjectMetric(METRICS.transportDuration.name) private readonly transportDuration: Histogram<string>,
    @InjectMetric(METRICS.storeQueries.name) private readonly storeQueries: Histogram<string>,
  ) {}

  onModuleInit() {
    this.stopTransport = recordTransportMessages(this.transportMessages, this.transportDuration);
  }

  onModuleDestroy() {
    this.stopTransport?.();
  }

  /** Express middleware counting and timing every HTTP request (mounted by createHttpApp). */
  httpMiddleware() {
    return httpMetrics(this.httpRequests, this.httpDuration);
  }

  /** Runs one tool call and records it under the HTTP status it ends with (`statusOf` maps failures). */
  timeToolCall<T>(tool: string, statusOf: (error: unknown) => number, run: () => Promise<T>): Promise<T> {
    return timed(run, (failure, seconds) => {
      const labels = { tool, status: String(failure ? statusOf(failure.error) : 200) };
      this.toolCalls.inc(labels);
      this.toolDuration.observe(labels, seconds);
    });
  }

  recordTokensCharged(tool: string, plan: string, tokens: number) {
    if (tokens > 0) this.tokensCharged.inc({ tool, plan }, tokens);
  }

  /** One request refused by the abuse limit named `limit`. */
  recordLimitRefusal(limit: string) {
    this.limitRefusals.inc({ limit });
  }

  /** Runs one store query and records its latency by engine and operation. */
  timeStoreQuery<T>(engine: string, operation: string, run: () => Promise<T>): Promise<T> {
    return timed(run, (failure, seconds) => this.storeQueries.observe({ engine, operation, outcome: failure ? 'error' : 'ok' }, seconds));
  }
}
