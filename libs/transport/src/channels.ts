import { ClientRedis, ServerRedis } from '@nestjs/microservices';

type RedisTransportOptions = ConstructorParameters<typeof ServerRedis>[0];

/**
 * Redis PUB/SUB channels are global: they ignore the database number. To make a database a complete,
 * isolated environment (keys and messages alike), channels of a non-zero database carry its number:
 * `redis://host:6379/2` sends `query.ads.search` on channel `db2:query.ads.search`. Database 0 keeps plain names.
 */
export function channelNamespace(redisUrl: string): string {
  const db = Number(new URL(redisUrl).pathname.slice(1) || 0);
  return db > 0 ? `db${db}:` : '';
}

export class NamespacedServerRedis extends ServerRedis {
  constructor(
    options: RedisTransportOptions,
    private readonly namespace: string,
  ) {
    super(options);
  }

  override getRequestPattern(pattern: string): string {
    return `${this.namespace}${pattern}`;
  }

  override getReplyPattern(pattern: string): string {
    return `${this.namespace}${pattern}.reply`;
  }

  override handleMessage(channel: string, buffer: string, pub: unknown, pattern: string) {
    return super.handleMessage(this.strip(channel), buffer, pub as never, this.strip(pattern));
  }

  private strip(channel: string): string {
    return channel.startsWith(this.namespace) ? channel.slice(this.namespace.length) : channel;
  }
}

export class NamespacedClientRedis extends ClientRedis {
  constructor(
    options: RedisTransportOptions,
    private readonly namespace: string,
  ) {
    super(options);
  }

  override getRequestPattern(pattern: string): string {
    return `${this.namespace}${pattern}`;
  }

  override getReplyPattern(pattern: string): string {
    return `${this.namespace}${pattern}.reply`;
  }
}
