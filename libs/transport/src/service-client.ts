import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import type { MessageDefinition, RequestOf, ResponseOf } from '@adintel/contracts';
import { currentRequestId } from '@adintel/observability';
import { RECONNECT, redisConnectionOptions } from './redis-connection';
import { channelNamespace, NamespacedClientRedis } from './channels';
import { ServiceError } from './service-error';
import { REQUEST_ID_METADATA } from './transport-server';

export interface ServiceClientOptions {
  readonly service: string;
  readonly redisUrl: string;
  readonly timeoutMs: number;
}

const LISTENER_CACHE_MS = 1_000;

/**
 * Sends registry messages to one service and returns its validated answer.
 * Never hangs (timeout -> `timeout`), fails fast when nobody serves the pattern (`unavailable`),
 * and turns the service's error payloads back into ServiceErrors.
 */
export class ServiceClient {
  private readonly logger: Logger;
  private readonly client: NamespacedClientRedis;
  private readonly namespace: string;
  private readonly probe: Redis;
  private readonly listeners = new Map<string, { count: number; at: number }>();

  constructor(private readonly options: ServiceClientOptions) {
    this.logger = new Logger(`ServiceClient:${options.service}`);
    const connection = { ...redisConnectionOptions(options.redisUrl), ...RECONNECT };
    this.namespace = channelNamespace(options.redisUrl);
    this.client = new NamespacedClientRedis(connection, this.namespace);
    this.client.setOnDispatchHook((packet) => {
      const requestId = currentRequestId();
      if (requestId) packet.metadata = { ...packet.metadata, [REQUEST_ID_METADATA]: requestId };
    });
    this.probe = new Redis({ ...redisConnectionOptions(options.redisUrl), lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.probe.on('error', (error) => this.logger.warn(`probe connection: ${error.message}`));
  }

  get service(): string {
    return this.options.service;
  }

  async send<M extends MessageDefinition>(message: M, data: RequestOf<M>): Promise<ResponseOf<M>> {
    await this.assertServed(message.pattern);
    let reply: unknown;
    try {
      reply = await firstValueFrom(this.client.send(message.pattern, data).pipe(timeout(this.options.timeoutMs)));
    } catch (error) {
      throw this.toServiceError(error, message.pattern);
    }
    const parsed = message.response.safeParse(reply);
    if (!parsed.success) {
      this.logger.error({ pattern: message.pattern, issues: parsed.error.issues.slice(0, 5) }, 'reply broke its contract');
      throw ServiceError.of('internal', `${this.service} answered ${message.pattern} outside its contract`);
    }
    return parsed.data as ResponseOf<M>;
  }

  async close(): Promise<void> {
    await this.client.close();
    this.probe.disconnect();
  }

  /** PUB/SUB drops a message nobody listens to; asking Redis first turns that silence into a fast 503. */
  private async assertServed(pattern: string): Promise<void> {
    const now = Date.now();
    let listening = this.listeners.get(pattern);
    if (!listening || now - listening.at > LISTENER_CACHE_MS) {
      let count: number;
      try {
        if (this.probe.status === 'wait' || this.probe.status === 'end') await this.probe.connect();
        const reply = (await this.probe.pubsub('NUMSUB', `${this.namespace}${pattern}`)) as [string, number];
        count = Number(reply[1]);
      } catch {
        throw ServiceError.of('unavailable', 'the message broker does not answer', { retry_after_seconds: 5 });
      }
      listening = { count, at: now };
      this.listeners.set(pattern, listening);
    }
    if (listening.count === 0) {
      throw ServiceError.of('unavailable', `the ${this.service} service is not running`, { retry_after_seconds: 5 });
    }
  }

  private toServiceError(error: unknown, pattern: string): ServiceError {
    if (error instanceof TimeoutError) {
      this.listeners.delete(pattern);
      return ServiceError.of('timeout', `the ${this.service} service did not answer within ${this.options.timeoutMs} ms`);
    }
    if (error instanceof Error) {
      this.logger.warn(`${pattern}: ${error.message}`);
      return ServiceError.of('unavailable', `the ${this.service} service cannot be reached`, { retry_after_seconds: 5 });
    }
    return ServiceError.fromWire(error);
  }
}
