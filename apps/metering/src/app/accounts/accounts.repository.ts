import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import { TRIAL_PLAN, type AppConfig } from '../../config';
import { Clock } from '../clock/clock';
import { PlanCatalog } from '../plans/plan-catalog';
import { MeteringKeys } from '../redis/keys';
import { LuaScript } from '../redis/lua-script';
import { ATTACH, DETACH, TRIAL_USED } from './accounts.scripts';

export interface OwnerRecord {
  readonly id: string;
  readonly plan: string;
  readonly createdAt: string;
}

interface AttachedAgentRecord {
  readonly agentId: string;
  readonly clientName: string | null;
  readonly attachedAt: string;
}

type AttachOutcome = 'attached' | 'no_owner' | 'taken' | 'is_owner';
type DetachOutcome = 'detached' | 'no_owner' | 'not_attached';
/** How long an agent's trial is kept: not at all (no such agent), until detached, or until `endsAt`. */
export type TrialLife = { readonly status: 'none' } | { readonly status: 'kept' } | { readonly status: 'expiring'; readonly endsAt: Date };

const scripts = { attach: new LuaScript(ATTACH), detach: new LuaScript(DETACH), trialUsed: new LuaScript(TRIAL_USED) };

/** Agents, owners and who is attached to whom (an agent is created on first sight by the balance scripts: PAYING_POOL). */
@Injectable()
export class AccountsRepository {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly keys: MeteringKeys,
    private readonly clock: Clock,
    private readonly plans: PlanCatalog,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'TRIAL_TTL_SECONDS'>,
  ) {}

  async findOwner(ownerId: string): Promise<OwnerRecord | null> {
    const fields = await this.redis.hgetall(this.keys.owner(ownerId));
    if (!fields['plan']) return null;
    return { id: ownerId, plan: fields['plan'], createdAt: fields['created_at'] ?? '' };
  }

  async upsertOwner(ownerId: string, plan: string): Promise<void> {
    const key = this.keys.owner(ownerId);
    await this.redis.multi().hset(key, 'plan', plan).hsetnx(key, 'created_at', this.clock.now().toISOString()).exec();
  }

  async attach(agentId: string, ownerId: string, clientName: string | null): Promise<AttachOutcome> {
    const [status] = (await scripts.attach.run(this.redis, [
      this.keys.prefix,
      this.clock.now().toISOString(),
      agentId,
      ownerId,
      clientName ?? '',
      clientName == null ? '0' : '1',
      this.trialPeriodKey(),
    ])) as [AttachOutcome];
    return status;
  }

  async detach(agentId: string, ownerId: string): Promise<DetachOutcome> {
    const [status] = (await scripts.detach.run(this.redis, [this.keys.prefix, agentId, ownerId, this.trialPeriodKey(), this.trialTtlMs()])) as [
      DetachOutcome,
    ];
    return status;
  }

  /** A token was issued to the agent: its trial lives TRIAL_TTL_SECONDS from now at least, unless attached. */
  async trialUsed(agentId: string): Promise<TrialLife> {
    const [status, endsAt] = (await scripts.trialUsed.run(this.redis, [this.keys.prefix, agentId, this.trialPeriodKey(), this.trialTtlMs()])) as [
      TrialLife['status'],
      number | undefined,
    ];
    return status === 'expiring' ? { status, endsAt: new Date(Number(endsAt)) } : { status };
  }

  /** The trial pool's period now (`life` for the default lifetime trial): the pool scripts keep or let age. */
  private trialPeriodKey(): string {
    return this.plans.periodOf(this.plans.get(TRIAL_PLAN), this.clock.now()).key;
  }

  private trialTtlMs(): number {
    return this.config.TRIAL_TTL_SECONDS * 1_000;
  }

  /** The owner's agents with their names, oldest attachment first. */
  async attachedAgents(ownerId: string): Promise<AttachedAgentRecord[]> {
    const attached = await this.redis.hgetall(this.keys.ownerAgents(ownerId));
    const entries = Object.entries(attached);
    if (entries.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const [id] of entries) pipeline.hget(this.keys.agent(id), 'client_name');
    const names = (await pipeline.exec()) ?? [];
    return entries
      .map(([agentId, attachedAt], i) => ({ agentId, clientName: (names[i]?.[1] as string | null) ?? null, attachedAt }))
      .sort((a, b) => a.attachedAt.localeCompare(b.attachedAt) || a.agentId.localeCompare(b.agentId));
  }
}
