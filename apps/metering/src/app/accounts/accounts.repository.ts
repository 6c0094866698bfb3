import { Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { Clock } from '../clock/clock';
import { MeteringKeys } from '../redis/keys';
import { LuaScript } from '../redis/lua-script';
import { ATTACH, DETACH } from './accounts.scripts';

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

const scripts = { attach: new LuaScript(ATTACH), detach: new LuaScript(DETACH) };

/** Agents, owners and who is attached to whom (an agent is created on first sight by the balance scripts: PAYING_POOL). */
@Injectable()
export class AccountsRepository {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly keys: MeteringKeys,
    private readonly clock: Clock,
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
    ])) as [AttachOutcome];
    return status;
  }

  async detach(agentId: string, ownerId: string): Promise<DetachOutcome> {
    const [status] = (await scripts.detach.run(this.redis, [this.keys.prefix, agentId, ownerId])) as [DetachOutcome];
    return status;
  }

  /** The owner's agents with their names, oldest attachment first. */
  async attachedAgents(ownerId: string): Promise<AttachedAgentRecord[]> {
    const attached = await this.redis.hgetall(this.keys.ownerAgents(ownerId));
    const ids = Object.keys(attached);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.agent(id), 'client_name');
    const names = (await pipeline.exec()) ?? [];
    return ids
      .map((agentId, i) => ({ agentId, clientName: (names[i]?.[1] as string | null) ?? null, attachedAt: attached[agentId] }))
      .sort((a, b) => a.attachedAt.localeCompare(b.attachedAt) || a.agentId.localeCompare(b.agentId));
  }
}
