import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';
import { METRICS } from './metric-definitions';
import { httpMetrics } from './http-metrics';
import { recordTransportMessages } from './transport-metrics';

const secondsSince = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;

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
  async timeToolCall<T>(tool: string, statusOf: (error: unknown) => number, run: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let status = 200;
    try {
      return await run();
    } catch (error) {
      status = statusOf(error);
      throw error;
    } finally {
      const labels = { tool, status: String(status) };
      this.toolCalls.inc(labels);
      this.toolDuration.observe(labels, secondsSince(started));
    }
  }

  recordTokensCharged(tool: string, plan: string, tokens: number) {
    if (tokens > 0) this.tokensCharged.inc({ tool, plan }, tokens);
  }

  /** Runs one store query and records its latency by engine and operation. */
  async timeStoreQuery<T>(engine: string, operation: string, run: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let outcome = 'ok';
    try {
      return await run();
    } catch (error) {
      outcome = 'error';
      throw error;
    } finally {
      this.storeQueries.observe({ engine, operation, outcome }, secondsSince(started));
    }
  }
}
