import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { MeteringMessages, type Settlement, type Usage } from '@adintel/contracts';
import { actualCost, projectRows, takeFields, worstCaseCost, type Priced, type ToolDefinition } from '@adintel/tool-catalogue';
import { AppMetrics } from '@adintel/observability';
import { ServiceError } from '@adintel/contracts';
import { InjectServiceClient, ServiceClient } from '@adintel/transport';
import type { Caller } from '../auth/caller';
import type { AppConfig } from '../config';
import { IDEMPOTENCY_HEADER } from '../idempotency/idempotency-key';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { nothingCharged, type Receipt } from './receipt';
import { reservationKey } from './reservation-key';

interface ToolCall {
  readonly tool: ToolDefinition;
  /** Arguments already validated for the surface they came from. */
  readonly args: Record<string, unknown>;
  readonly caller: Caller;
  /** The HTTP request id; with `callId` (JSON-RPC id) it keys the reservation. */
  readonly requestId: string;
  readonly callId?: string | number;
  /** The caller's Idempotency-Key: a repeat of the same call with it is a replay, charged 0. */
  readonly idempotencyKey?: string;
}

interface ToolOutcome {
  readonly result: unknown;
  readonly receipt: Receipt;
}

/**
 * A paid operation run through the one reserve/settle path: a tool, or a priced operation beside the tools
 * (`media_file`: its handler reads the file in `run`). `args` name the call for Idempotency-Key matching.
 */
export interface PricedCall<R> {
  /** What metering holds tokens for; the ledger records the call under `priced.name`. */
  readonly priced: Priced;
  readonly worstCase: number;
  readonly args: Record<string, unknown>;
  readonly caller: Caller;
  readonly requestId: string;
  readonly idempotencyKey?: string;
  /** Does the work once the tokens are held; a throw releases them. */
  readonly run: () => Promise<R>;
  /** What the finished call costs (at most what was held). */
  readonly cost: (result: R) => number;
}

export interface PricedOutcome<R> {
  /** The run's result, or on an Idempotency-Key replay the result stored by the first run (charged 0). */
  readonly result: R;
  readonly receipt: Receipt;
  readonly replay: boolean;
}

/**
 * The one way a tool runs, whichever surface asked: rate limit -> reserve the worst case ->
 * ask the owning service -> settle what the result actually costs (or release on failure).
 * A priced operation beside the tools (a media file) takes the same path through `invokePriced`.
 * Failures are ServiceErrors; the surfaces only translate them.
 */
@Injectable()
export class ToolInvoker {
  private readonly logger = new Logger('ToolInvoker');

  constructor(
    @InjectServiceClient('query') private readonly query: ServiceClient,
    @InjectServiceClient('metering') private readonly metering: ServiceClient,
    private readonly rateLimiter: RateLimiterService,
    private readonly idempotency: IdempotencyService,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'SETTLE_ATTEMPTS'>,
    private readonly metrics: AppMetrics,
  ) {}

  /** Runs the call, counted and timed by tool and the HTTP status it ends with (402 and 429 included). */
  invoke(call: ToolCall): Promise<ToolOutcome> {
    return this.metrics.timeToolCall(call.tool.name, statusOf, () => this.run(call));
  }

  /** A priced operation beside the tools, through the same path as a paid tool (counted and timed under its name). */
  invokePriced<R>(call: PricedCall<R>): Promise<PricedOutcome<R>> {
    return this.metrics.timeToolCall(call.priced.name, statusOf, () => this.runPriced(call));
  }

  /** A scanning tool runs in one of the caller's scan slots (taken before its tokens are held). */
  private run(call: ToolCall): Promise<ToolOutcome> {
    return call.tool.scan ? this.rateLimiter.scanning(call.caller.sub, () => this.runTool(call)) : this.runTool(call);
  }

  private async runTool(call: ToolCall): Promise<ToolOutcome> {
    const { tool, args } = call;
    const worstCase = worstCaseCost(tool, args);
    if (worstCase === 0) {
      await this.rateLimiter.consume(call.caller.sub, tool.admission);
      const result = await this.send(call);
      return { result, receipt: nothingCharged(remainingShownBy(tool, result)) };
    }
    const { result, receipt } = await this.runPriced<unknown>({
      ...call,
      priced: tool,
      worstCase,
      run: () => this.send(call),
      cost: (result) => actualCost(tool, result),
    });
    return { result, receipt };
  }

  /** Rate limit, then (with an Idempotency-Key) claim the key or replay its stored answer, then pay and run. */
  private async runPriced<R>(call: PricedCall<R>): Promise<PricedOutcome<R>> {
    const { priced, args, caller } = call;
    await this.rateLimiter.consume(caller.sub);
    if (call.idempotencyKey === undefined) return this.runPaid(call, reservationKey(call.requestId));

    const begun = await this.idempotency.begin({ caller: caller.sub, key: call.idempotencyKey, tool: priced.name, args });
    switch (begun.kind) {
      case 'replay':
        // Stored by the first run of the same operation with the same arguments (the key's fingerprint).
        return { result: begun.result as R, receipt: { status: 'settled', charged: 0, replay: true }, replay: true };
      case 'in_flight':
        throw ServiceError.of('conflict', `a call with this ${IDEMPOTENCY_HEADER} is still running: retry in a moment for its answer`, {
          retry_after_seconds: 1,
        });
      case 'mismatch':
        throw ServiceError.of('conflict', `this ${IDEMPOTENCY_HEADER} was used for a different call (tool or arguments): use a new key`);
      case 'run':
        break;
    }
    let outcome: PricedOutcome<R>;
    try {
      outcome = await this.runPaid(call, reservationKey(call.requestId, begun.ticket.digest));
    } catch (error) {
      await this.idempotency.abandon(begun.ticket);
      throw error;
    }
    await this.idempotency.finish(begun.ticket, outcome.result, outcome.receipt.status === 'settled' ? outcome.receipt.charged : 'pending');
    return outcome;
  }

  /**
   * Reserve the worst case, run, settle what the result costs (or release on failure). The query waits for
   * the hold (product-decisions.md: a paid call reserves its worst case before the query runs): sending both
   * at once would save one hop of latency, but would make query-api work for calls that are then refused.
   */
  private async runPaid<R>(call: PricedCall<R>, key: string): Promise<PricedOutcome<R>> {
    const { priced, caller } = call;
    const reservation = await this.metering.send(MeteringMessages.reserve, {
      request_id: key,
      caller_id: caller.sub,
      // An owner's token names the client acting for her: the ledger records which one spent her pool.
      ...(caller.clientId && caller.clientId !== caller.sub ? { client_id: caller.clientId } : {}),
      tool: priced.name,
      amount: call.worstCase,
    });

    let result: R;
    try {
      result = await call.run();
    } catch (error) {
      await this.release(key, caller.sub);
      throw error;
    }

    const charged = Math.min(call.cost(result), reservation.reserved);
    return { result, receipt: await this.settle(key, caller.sub, charged), replay: false };
  }

  /**
   * Settles until metering says how it closed. Settle is idempotent by reservation key, so a retry
   * after a lost answer returns the charge that already landed instead of charging twice. When no
   * answer comes at all, the charge may or may not have landed: the receipt says `pending`, never 0.
   */
  private async settle(key: string, callerId: string, charged: number): Promise<Receipt> {
    for (let attempt = 1; ; attempt++) {
      let settlement: Settlement;
      try {
        settlement = await this.metering.send(MeteringMessages.settle, { request_id: key, caller_id: callerId, charged });
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'not_found') {
          // The hold is gone (expired and returned) before any settle landed: nothing was charged.
          return nothingCharged();
        }
        const retryable = !(error instanceof ServiceError) || SETTLE_RETRYABLE.has(error.code);
        if (!retryable || attempt >= this.config.SETTLE_ATTEMPTS) {
          this.logger.error(`settle ${key} of ${charged} tokens has no known outcome after ${attempt} attempts: ${(error as Error).message}`);
          return { status: 'pending', pending: charged, usageRequestId: key };
        }
        this.logger.warn(`settle ${key} attempt ${attempt} failed, retrying: ${(error as Error).message}`);
        await sleep(SETTLE_RETRY_DELAY_MS * attempt);
        continue;
      }
      return { status: 'settled', charged: settlement.charged, remaining: settlement.remaining };
    }
  }

  /** Asks the owning service; `fields` stays here: the service answers whole rows, the edge trims them. */
  private async send({ tool, args: validated, caller }: ToolCall): Promise<unknown> {
    const client = tool.service === 'query' ? this.query : this.metering;
    const { args, fields } = takeFields(validated);
    const message = tool.callerScoped ? { ...args, caller_id: caller.sub } : args;
    const result = await client.send(tool.message, message as never);
    return tool.selection ? projectRows(result, tool.selection, fields) : result;
  }

  private async release(key: string, callerId: string): Promise<void> {
    try {
      await this.metering.send(MeteringMessages.release, { request_id: key, caller_id: callerId });
    } catch (error) {
      this.logger.warn(`release ${key} failed; the reservation will expire: ${(error as Error).message}`);
    }
  }
}

/** Failures after which the settle may or may not have landed: asking again is safe (idempotent) and tells. */
const SETTLE_RETRYABLE = new Set<ServiceError['code']>(['timeout', 'unavailable', 'internal']);
const SETTLE_RETRY_DELAY_MS = 100;

/**
 * get_usage answers with the balance itself (metering's Usage): its receipt can say what remains.
 * Only that tool's answer is looked at, and only at its one field, instead of parsing every free answer.
 */
function remainingShownBy(tool: ToolDefinition, result: unknown): number | undefined {
  if (tool.message !== MeteringMessages.getUsage) return undefined;
  const { remaining } = result as Partial<Usage>;
  return typeof remaining === 'number' ? remaining : undefined;
}

/** The HTTP status a failed call is answered with (both surfaces map ServiceErrors the same way). */
const statusOf = (error: unknown) => (error instanceof ServiceError ? error.status : 500);
