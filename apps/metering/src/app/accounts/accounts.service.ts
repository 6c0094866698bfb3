import { Injectable } from '@nestjs/common';
import type { OwnerAccount, Usage } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import type { Plan } from '../../config';
import { BalanceRepository } from '../balances/balance.repository';
import { Clock } from '../clock/clock';
import { PlanCatalog, type PlanPeriod } from '../plans/plan-catalog';
import { poolId, type PoolKind } from '../redis/keys';
import { AccountsRepository, type OwnerRecord } from './accounts.repository';

/** The pool that pays for a caller's calls right now, and who the caller is. */
interface PayingPool {
  readonly caller: { readonly kind: PoolKind; readonly id: string };
  readonly kind: PoolKind;
  readonly account: string;
  readonly id: string;
  readonly planId: string;
  readonly plan: Plan;
  readonly period: PlanPeriod;
}

/**
 * Who pays: an owner pays from its plan's pool; an agent from its owner's pool while attached,
 * otherwise from its own trial, which is never reset and keeps what it had while the agent was attached.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly balances: BalanceRepository,
    private readonly plans: PlanCatalog,
    private readonly clock: Clock,
  ) {}

  /** `callerId` is a token's `sub`: an owner's account id or an agent's client id (an agent is created on first sight). */
  async payingPool(callerId: string): Promise<PayingPool> {
    const owner = await this.accounts.findOwner(callerId);
    if (owner) return this.ownerPool(owner, { kind: 'owner', id: callerId });
    const agent = await this.accounts.ensureAgent(callerId);
    const caller = { kind: 'agent' as const, id: callerId };
    if (agent.ownerId) {
      const ownerOfAgent = await this.accounts.findOwner(agent.ownerId);
      if (ownerOfAgent) return this.ownerPool(ownerOfAgent, caller);
    }
    return this.pool(caller, 'agent', callerId, this.plans.trialId);
  }

  async usageOf(pool: PayingPool): Promise<Usage> {
    const { used, reserved } = await this.balances.usage(pool.id);
    return {
      plan: pool.planId,
      pool: pool.kind,
      allowance: pool.plan.allowance,
      used,
      reserved,
      remaining: Math.max(0, pool.plan.allowance - used - reserved),
      period: pool.period.start && pool.period.end ? { start: pool.period.start.toISOString(), end: pool.period.end.toISOString() } : null,
    };
  }

  async registerAgent(agentId: string, clientName: string | null): Promise<Usage> {
    await this.accounts.ensureAgent(agentId, clientName);
    return this.usageOf(await this.payingPool(agentId));
  }

  async upsertOwner(ownerId: string, planId: string): Promise<OwnerAccount> {
    if (!this.plans.has(planId)) {
      throw ServiceError.invalidArgument([{ field: 'plan', message: `unknown plan "${planId}"`, allowed: this.plans.ids }]);
    }
    await this.accounts.upsertOwner(ownerId, planId);
    return this.ownerAccount(ownerId);
  }

  async attachAgent(agentId: string, ownerId: string, clientName: string | null): Promise<OwnerAccount> {
    const outcome = await this.accounts.attach(agentId, ownerId, clientName);
    if (outcome === 'no_owner') throw ServiceError.notFound('owner', ownerId);
    if (outcome === 'taken') throw ServiceError.of('conflict', `agent ${JSON.stringify(agentId)} is attached to another owner`);
    if (outcome === 'is_owner') {
      throw ServiceError.invalidArgument([{ field: 'agent_id', message: 'is an owner account, not an agent' }]);
    }
    return this.ownerAccount(ownerId);
  }

  async detachAgent(agentId: string, ownerId: string): Promise<OwnerAccount> {
    const outcome = await this.accounts.detach(agentId, ownerId);
    if (outcome === 'no_owner') throw ServiceError.notFound('owner', ownerId);
    if (outcome === 'not_attached') throw ServiceError.of('not_found', `agent ${JSON.stringify(agentId)} is not attached to this owner`);
    return this.ownerAccount(ownerId);
  }

  async ownerAccount(ownerId: string): Promise<OwnerAccount> {
    const owner = await this.accounts.findOwner(ownerId);
    if (!owner) throw ServiceError.notFound('owner', ownerId);
    const [agents, usage] = await Promise.all([
      this.accounts.attachedAgents(ownerId),
      this.usageOf(this.ownerPool(owner, { kind: 'owner', id: ownerId })),
    ]);
    return {
      owner_id: ownerId,
      plan: owner.plan,
      agents: agents.map((a) => ({ agent_id: a.agentId, client_name: a.clientName, attached_at: a.attachedAt })),
      usage,
    };
  }

  /** Whose ledger a caller reads: an owner's (every call its pool paid for) or an agent's own. */
  async callerKind(callerId: string): Promise<PoolKind> {
    return (await this.accounts.findOwner(callerId)) ? 'owner' : 'agent';
  }

  /** Throws not_found for an unknown owner. */
  async requireOwner(ownerId: string): Promise<OwnerRecord> {
    const owner = await this.accounts.findOwner(ownerId);
    if (!owner) throw ServiceError.notFound('owner', ownerId);
    return owner;
  }

  private ownerPool(owner: OwnerRecord, caller: PayingPool['caller']): PayingPool {
    return this.pool(caller, 'owner', owner.id, owner.plan);
  }

  private pool(caller: PayingPool['caller'], kind: PoolKind, account: string, planId: string): PayingPool {
    const plan = this.plans.get(planId);
    const period = this.plans.periodOf(plan, this.clock.now());
    return { caller, kind, account, id: poolId(kind, period.key, account), planId, plan, period };
  }
}
