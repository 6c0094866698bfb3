import { Injectable, Logger } from '@nestjs/common';
import { MeteringMessages, Usage } from '@adintel/contracts';
import { actualCost, worstCaseCost, type ToolDefinition } from '@adintel/tool-catalogue';
import { AppMetrics } from '@adintel/observability';
import { InjectServiceClient, ServiceClient, ServiceError } from '@adintel/transport';
import type { Caller } from '../auth/caller';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { reservationKey } from './reservation-key';

export interface ToolCall {
  readonly tool: ToolDefinition;
  /** Arguments already validated for the surface they came from. */
  readonly args: Record<string, unknown>;
  readonly caller: Caller;
  /** The HTTP request id; with `callId` (JSON-RPC id) it keys the reservation. */
  readonly requestId: string;
  readonly callId?: string | number;
}

/** What the call cost and what the paying pool has left (unknown when no pool was consulted). */
export interface Receipt {
  readonly charged: number;
  readonly remaining?: number;
}

export interface ToolOutcome {
  readonly result: unknown;
  readonly receipt: Receipt;
}

/**
 * The one way a tool runs, whichever surface asked: rate limit -> reserve the worst case ->
 * ask the owning service -> settle what the result actually costs (or release on failure).
 * Failures are ServiceErrors; the surfaces only translate them.
 */
@Injectable()
export class ToolInvoker {
  private readonly logger = new Logger('ToolInvoker');

  constructor(
    @InjectServiceClient('query') private readonly query: ServiceClient,
    @InjectServiceClient('metering') private readonly metering: ServiceClient,
    private readonly rateLimiter: RateLimiterService,
    private readonly metrics: AppMetrics,
  ) {}

  /** Runs the call, counted and timed by tool and the HTTP status it ends with (402 and 429 included). */
  invoke(call: ToolCall): Promise<ToolOutcome> {
    return this.metrics.timeToolCall(call.tool.name, statusOf, () => this.run(call));
  }

  private async run(call: ToolCall): Promise<ToolOutcome> {
    const { tool, args, caller } = call;
    const worstCase = worstCaseCost(tool, args);
    if (worstCase === 0) {
      const result = await this.send(call);
      return { result, receipt: { charged: 0, ...remainingShownBy(result) } };
    }

    await this.rateLimiter.consume(caller.sub);
    const key = reservationKey(call.requestId, { caller: caller.sub, tool: tool.name, args, callId: call.callId });
    const reservation = await this.metering.send(MeteringMessages.reserve, {
      request_id: key,
      caller_id: caller.sub,
      tool: tool.name,
      amount: worstCase,
    });

    let result: unknown;
    try {
      result = await this.send(call);
    } catch (error) {
      await this.release(key, caller.sub);
      throw error;
    }

    const charged = Math.min(actualCost(tool, result), reservation.reserved);
    try {
      const settlement = await this.metering.send(MeteringMessages.settle, { request_id: key, caller_id: caller.sub, charged });
      return { result, receipt: { charged: settlement.charged, remaining: settlement.remaining } };
    } catch (error) {
      // The caller has the result; the unsettled hold expires and is returned, so nothing is charged.
      this.logger.error(`settle ${key} failed; the reservation will expire uncharged: ${(error as Error).message}`);
      return { result, receipt: { charged: 0 } };
    }
  }

  private send({ tool, args, caller }: ToolCall): Promise<unknown> {
    const client = tool.service === 'query' ? this.query : this.metering;
    const message = tool.callerScoped ? { ...args, caller_id: caller.sub } : args;
    return client.send(tool.message, message as never);
  }

  private async release(key: string, callerId: string): Promise<void> {
    try {
      await this.metering.send(MeteringMessages.release, { request_id: key, caller_id: callerId });
    } catch (error) {
      this.logger.warn(`release ${key} failed; the reservation will expire: ${(error as Error).message}`);
    }
  }
}

/** get_usage answers with the balance itself: its receipt can say what remains. */
function remainingShownBy(result: unknown): { remaining?: number } {
  const usage = Usage.safeParse(result);
  return usage.success ? { remaining: usage.data.remaining } : {};
}

/** The HTTP status a failed call is answered with (both surfaces map ServiceErrors the same way). */
const statusOf = (error: unknown) => (error instanceof ServiceError ? error.status : 500);
