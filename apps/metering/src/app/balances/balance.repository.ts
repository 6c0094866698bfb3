import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { Clock } from '../clock/clock';
import { MeteringKeys, type PoolKind } from '../redis/keys';
import { LuaScript } from '../redis/lua-script';
import { PlanCatalog } from '../plans/plan-catalog';
import { RESERVE, SETTLE, SWEEP, USAGE } from './balance.scripts';

/** A closed reservation is remembered this long, so a late duplicate reserve or settle is still recognised. */
const CLOSED_RESERVATION_RETENTION_MS = 7 * 24 * 3_600_000;

interface HoldRequest {
  readonly requestId: string;
  /** A token's `sub`: the scripts find the pool that pays for it. */
  readonly callerId: string;
  /** The OAuth client that made an owner's call, recorded in the ledger and the owner's daily figures. */
  readonly clientId: string | null;
  readonly tool: string;
  readonly amount: number;
}

/** The account's plan is no longer in PLANS (an operator error): nothing was read or held. */
interface UnknownPlan {
  readonly status: 'unknown_plan';
  readonly planId: string;
}

type HoldOutcome =
  | { readonly status: 'held'; readonly poolKind: PoolKind; readonly reserved: number; readonly remaining: number }
  | { readonly status: 'short'; readonly remaining: number }
  | { readonly status: 'conflict' }
  | UnknownPlan;

type PoolUsageOutcome =
  | {
      readonly status: 'found';
      readonly planId: string;
      readonly poolKind: PoolKind;
      readonly allowance: number;
      readonly used: number;
      readonly reserved: number;
      /** The moment the pool was read: the period it belongs to. */
      readonly at: Date;
    }
  | UnknownPlan;

export type CloseOutcome =
  | {
      readonly status: 'closed';
      readonly outcome: 'settled' | 'expired';
      readonly charged: number;
      readonly refunded: number;
      readonly remaining: number;
      readonly tool: string;
      readonly plan: string;
      /** This call closed it (false when it answers a reservation closed before: a duplicate settle). */
      readonly closedNow: boolean;
    }
  | { readonly status: 'missing' }
  | { readonly status: 'too_much'; readonly reserved: number };

const scripts = {
  reserve: new LuaScript(RESERVE),
  settle: new LuaScript(SETTLE),
  usage: new LuaScript(USAGE),
  sweep: new LuaScript(SWEEP),
};

/** Pools, reservations and the ledger writes that go with them: Redis is the only place they live. */
@Injectable()
export class BalanceRepository {
  private readonly ledgerRetentionMs: number;
  private readonly reservationTtlMs: number;
  private readonly trialTtlMs: number;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly keys: MeteringKeys,
    private readonly clock: Clock,
    private readonly plans: PlanCatalog,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'LEDGER_RETENTION_DAYS' | 'RESERVATION_TTL_SECONDS' | 'TRIAL_TTL_SECONDS'>,
  ) {
    this.ledgerRetentionMs = config.LEDGER_RETENTION_DAYS * 86_400_000;
    this.reservationTtlMs = config.RESERVATION_TTL_SECONDS * 1_000;
    this.trialTtlMs = config.TRIAL_TTL_SECONDS * 1_000;
  }

  /** Who pays + check + hold + record in one script (one round trip); the same request id holds once. */
  async hold(request: HoldRequest): Promise<HoldOutcome> {
    const now = this.clock.now();
    const reply = (await scripts.reserve.run(this.redis, [
      ...this.commonArgs(now),
      request.requestId,
      request.callerId,
      request.amount,
      request.tool,
      now.getTime() + this.reservationTtlMs,
      request.clientId ?? '',
      ...this.plans.scriptTerms(now),
    ])) as [string, ...(string | number)[]];
    switch (reply[0]) {
      case 'held':
        return { status: 'held', poolKind: reply[1] as PoolKind, reserved: Number(reply[2]), remaining: Number(reply[3]) };
      case 'short':
        return { status: 'short', remaining: Number(reply[1]) };
      case 'unknown_plan':
        return { status: 'unknown_plan', planId: String(reply[1]) };
      default:
        return { status: 'conflict' };
    }
  }

  /** Charges `charged` of a held reservation and returns the rest; a closed one answers how it closed. */
  async close(requestId: string, callerId: string, charged: number): Promise<CloseOutcome> {
    const reply = (await scripts.settle.run(this.redis, [...this.commonArgs(this.clock.now()), requestId, callerId, charged])) as [
      string,
      ...(string | number)[],
    ];
    switch (reply[0]) {
      case 'closed':
        return {
          status: 'closed',
          outcome: reply[1] as 'settled' | 'expired',
          charged: Number(reply[2]),
          refunded: Number(reply[3]),
          remaining: Number(reply[4]),
          tool: String(reply[5]),
          plan: String(reply[6]),
          closedNow: Number(reply[7]) === 1,
        };
      case 'too_much':
        return { status: 'too_much', reserved: Number(reply[1]) };
      default:
        return { status: 'missing' };
    }
  }

  /**
   * The pool that pays for a caller, with its used and reserved tokens after its expired reservations came back;
   * an agent seen for the first time is created (with `clientName` when given, which replaces a stored name).
   */
  async poolUsage(callerId: string, clientName: string | null = null): Promise<PoolUsageOutcome> {
    const now = this.clock.now();
    const reply = (await scripts.usage.run(this.redis, [
      ...this.commonArgs(now),
      callerId,
      clientName ?? '',
      clientName == null ? '0' : '1',
      ...this.plans.scriptTerms(now),
    ])) as [string, ...(string | number)[]];
    if (reply[0] !== 'found') return { status: 'unknown_plan', planId: String(reply[1]) };
    return {
      status: 'found',
      planId: String(reply[1]),
      poolKind: reply[2] as PoolKind,
      allowance: Number(reply[3]),
      used: Number(reply[4]),
      reserved: Number(reply[5]),
      at: now,
    };
  }

  /** Pools with reservations in flight. */
  async *holdingPools(): AsyncGenerator<string> {
    let cursor = '0';
    do {
      const [next, members] = await this.redis.sscan(this.keys.holdingPools(), cursor, 'COUNT', 200);
      cursor = next;
      yield* members;
    } while (cursor !== '0');
  }

  /** Gives back the expired reservations of one pool; returns how many were due. */
  async sweep(poolId: string): Promise<number> {
    return Number(await scripts.sweep.run(this.redis, [...this.commonArgs(this.clock.now()), poolId]));
  }

  private commonArgs(now: Date): (string | number)[] {
    const iso = now.toISOString();
    return [
      this.keys.prefix,
      now.getTime(),
      iso,
      iso.slice(0, 10),
      CLOSED_RESERVATION_RETENTION_MS,
      this.ledgerRetentionMs,
      this.trialTtlMs,
    ];
  }
}
