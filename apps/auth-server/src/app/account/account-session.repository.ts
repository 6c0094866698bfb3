import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { accountSessionKey, ownerSessionsKey } from '../owners/owner-access';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Account-page sessions: a random id in a cookie, the owner id in Redis under the id's digest, expiring on their own,
 * and listed per owner so a new password ends them (owners/owner-access.ts).
 */
@Injectable()
export class AccountSessionRepository {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get ttlSeconds(): number {
    return this.config.ACCOUNT_SESSION_TTL_SECONDS;
  }

  async create(ownerId: string): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const key = accountSessionKey(id);
    await this.redis
      .multi()
      .set(key, ownerId, 'EX', this.ttlSeconds)
      .sadd(ownerSessionsKey(ownerId), key)
      .expire(ownerSessionsKey(ownerId), this.ttlSeconds)
      .exec();
    return id;
  }

  async ownerOf(id: string | undefined): Promise<string | undefined> {
    if (!id || !SESSION_ID.test(id)) return undefined;
    return (await this.redis.get(accountSessionKey(id))) ?? undefined;
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(accountSessionKey(id));
  }
}
