import { Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';

export interface OwnerRecord {
  readonly owner_id: string;
  readonly email: string;
  readonly password_hash: string;
  readonly plan: string;
  readonly created_at: string;
  readonly updated_at: string;
}

const ownerKey = (ownerId: string) => `owner:${ownerId}`;
const emailKey = (email: string) => `owner-email:${email}`;

/** Owner accounts in Redis: one hash per owner plus an email -> id index. */
@Injectable()
export class OwnersRepository {
  constructor(@InjectRedis() private readonly redis: Redis) {}

  async findById(ownerId: string): Promise<OwnerRecord | undefined> {
    const record = await this.redis.hgetall(ownerKey(ownerId));
    return record['owner_id'] ? (record as unknown as OwnerRecord) : undefined;
  }

  async findByEmail(email: string): Promise<OwnerRecord | undefined> {
    const ownerId = await this.redis.get(emailKey(email));
    return ownerId ? this.findById(ownerId) : undefined;
  }

  /** Stores the owner; the email index is claimed atomically, so two owners can never share an email. */
  async create(owner: OwnerRecord): Promise<boolean> {
    const claimed = await this.redis.set(emailKey(owner.email), owner.owner_id, 'NX');
    if (claimed !== 'OK') return false;
    await this.redis.hset(ownerKey(owner.owner_id), { ...owner });
    return true;
  }

  async update(ownerId: string, changes: Pick<OwnerRecord, 'password_hash' | 'plan' | 'updated_at'>): Promise<void> {
    await this.redis.hset(ownerKey(ownerId), { ...changes });
  }
}
