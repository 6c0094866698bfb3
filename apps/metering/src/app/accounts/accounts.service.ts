import { Injectable } from '@nestjs/common';
import type { OwnerAccount, TrialLifetime, Usage } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { BalanceRepository } from '../balances/balance.repository';
import { PlanCatalog } from '../plans/plan-catalog';
import { AccountsRepository, type OwnerRecord } from './accounts.repository';

/**
 * Owners, agents and who is attached to whom. Who pays for a caller's calls (an owner from its plan's pool, an
 * attached agent from its owner's, any other agent from its own trial) is decided inside the balance scripts,
 * PAYING_POOL in accounts.scripts.ts, so that a paid call's reserve is one Redis round trip.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly balances: BalanceRepository,
    private readonly plans: PlanCatalog,
  ) {}

  /**
   * The pool that pays for `callerId` (a token's `sub`: an owner's account id or an agent's client id; an agent is
   * created on first sight, named `clientName` when given) and what is left in it.
   */
  async usage(callerId: string, clientName: string | null = null): Promise<Usage> {
    const pool = await this.balances.poolUsage(callerId, clientName);
    if (pool.status === 'unknown_plan') throw this.plans.notConfigured(pool.planId);
    const period = this.plans.periodOf(this.plans.get(pool.planId), pool.at);
    return {
      plan: pool.planId,
      pool: pool.poolKind,
      allowance: pool.allowance,
      used: pool.used,
      reserved: pool.reserved,
      remaining: Math.max(0, pool.allowance - pool.used - pool.reserved),
      period: period.start && period.end ? { start: period.start.toISOString(), end: period.end.toISOString() } : null,
    };
  }

  registerAgent(agentId: string, clientName: string | null): Promise<Usage> {
    return this.usage(agentId, clientName);
  }

  /**
   * A token was issued to `agentId`'s client: its trial lives on, and the answer says until when, so the auth server
   * keeps the client no longer (a client outliving its trial would start a fresh one).
   */
  async trialUsed(agentId: string): Promise<TrialLifetime> {
    const life = await this.accounts.trialUsed(agentId);
    return life.status === 'expiring' ? { trial: 'expiring', expires_at: life.endsAt.toISOString() } : { trial: life.status };
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
    const [agents, usage] = await Promise.all([this.accounts.attachedAgents(ownerId), this.usage(ownerId)]);
    return {
      owner_id: ownerId,
      plan: owner.plan,
      agents: agents.map((a) => ({ agent_id: a.agentId, client_name: a.clientName, attached_at: a.attachedAt })),
      usage,
    };
  }

  /** Throws not_found for an unknown owner. */
  async requireOwner(ownerId: string): Promise<OwnerRecord> {
    const owner = await this.accounts.findOwner(ownerId);
    if (!owner) throw ServiceError.notFound('owner', ownerId);
    return owner;
  }
}
