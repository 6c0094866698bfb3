import { Injectable, Logger } from '@nestjs/common';
import type { Reservation, Settlement } from '@adintel/contracts';
import { findPriced, maxAffordableLimit } from '@adintel/tool-catalogue';
import { AppMetrics } from '@adintel/observability';
import { ServiceError } from '@adintel/contracts';
import { PlanCatalog } from '../plans/plan-catalog';
import { BalanceRepository } from './balance.repository';

interface ReserveRequest {
  readonly request_id: string;
  readonly caller_id: string;
  readonly client_id?: string;
  readonly tool: string;
  readonly amount: number;
}

/**
 * A paid call holds its worst case before it runs, then settles to what it returned.
 * Both steps are idempotent by request id: a message delivered twice holds and charges once.
 */
@Injectable()
export class ReservationsService {
  private readonly logger = new Logger(ReservationsService.name);

  constructor(
    private readonly balances: BalanceRepository,
    private readonly plans: PlanCatalog,
    private readonly metrics: AppMetrics,
  ) {}

  async reserve(request: ReserveRequest): Promise<Reservation> {
    // A catalogue tool or a priced operation beside them (media_file): the ledger records either by its name.
    const tool = findPriced(request.tool);
    if (!tool) throw ServiceError.invalidArgument([{ field: 'tool', message: `unknown tool or priced operation "${request.tool}"` }]);
    const outcome = await this.balances.hold({
      requestId: request.request_id,
      callerId: request.caller_id,
      clientId: request.client_id ?? null,
      tool: tool.name,
      amount: request.amount,
    });
    switch (outcome.status) {
      case 'held':
        return { request_id: request.request_id, pool: outcome.poolKind, reserved: outcome.reserved, remaining: outcome.remaining };
      case 'short':
        throw ServiceError.insufficientBalance({
          needed: request.amount,
          remaining: outcome.remaining,
          max_affordable_limit: maxAffordableLimit(tool, outcome.remaining),
        });
      case 'conflict':
        throw ServiceError.of('conflict', `request id ${JSON.stringify(request.request_id)} already holds tokens of another caller`);
      case 'unknown_plan':
        throw this.plans.notConfigured(outcome.planId);
    }
  }

  /** Charges `charged` (at most what was reserved) and gives the rest back. */
  async settle(requestId: string, callerId: string, charged: number): Promise<Settlement> {
    const outcome = await this.balances.close(requestId, callerId, charged);
    switch (outcome.status) {
      case 'missing':
        throw ServiceError.notFound('reservation', requestId);
      case 'too_much':
        throw ServiceError.invalidArgument([
          { field: 'charged', message: `must be at most the ${outcome.reserved} tokens reserved` },
        ]);
      case 'closed':
        if (outcome.closedNow) this.metrics.recordTokensCharged(outcome.tool, outcome.plan, outcome.charged);
        if (outcome.outcome === 'expired') {
          this.logger.warn(`reservation ${requestId} had expired before it was settled; its call is free`);
        }
        return { request_id: requestId, charged: outcome.charged, refunded: outcome.refunded, remaining: outcome.remaining };
    }
  }

  /** A failed call costs nothing. */
  release(requestId: string, callerId: string): Promise<Settlement> {
    return this.settle(requestId, callerId, 0);
  }
}
