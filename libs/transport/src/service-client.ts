import { Logger } from '@nestjs/common';
import { firstValueFrom } from 'rxjs';
import { ServiceError, type MessageDefinition, type RequestOf, type ResponseOf, type ServiceName } from '@adintel/contracts';
import { groupBacklog } from './consumer-groups';
import { publishSent, type TransportSentEvent } from './diagnostics';
import { ServiceLiveness } from './service-liveness';
import { RequestTimeout, StreamsClientProxy } from './streams-client';
import { StreamKeys } from './stream-keys';

export interface ServiceClientOptions {
  readonly service: ServiceName;
  /** The broker: TRANSPORT_URL, which defaults to REDIS_URL. */
  readonly url: string;
  readonly timeoutMs: number;
}

const LIVENESS_REFRESH_MS = 500;

/**
 * Sends registry messages to one service and returns its validated answer.
 * Never hangs (timeout -> `timeout`), fails fast when no live replica serves the service (`unavailable`),
 * and turns the service's error payloads back into ServiceErrors.
 */
export class ServiceClient {
  private readonly logger: Logger;
  private readonly proxy: StreamsClientProxy;
  private readonly liveness: ServiceLiveness;

  constructor(private readonly options: ServiceClientOptions) {
    this.logger = new Logger(`ServiceClient:${options.service}`);
    this.proxy = new StreamsClientProxy({ service: options.service, url: options.url, timeoutMs: options.timeoutMs });
    this.liveness = new ServiceLiveness(() => this.proxy.unwrap(), options.service, LIVENESS_REFRESH_MS);
  }

  get service(): ServiceName {
    return this.options.service;
  }

  /**
   * The reply is validated here, once, against the message's response schema: the caller gets typed data
   * and the service's answer is checked at the caller's boundary (the service validated the request at its own).
   */
  async send<M extends MessageDefinition>(message: M, data: RequestOf<M>): Promise<ResponseOf<M>> {
    const started = performance.now();
    const sent = (outcome: TransportSentEvent['outcome']) =>
      publishSent({ pattern: message.pattern, outcome, durationMs: Math.round((performance.now() - started) * 10) / 10 });
    let reply: unknown;
    try {
      // A cached "alive" costs no await; the proxy's request is one XADD and one timer, without rxjs.
      if (!this.liveness.knownLive()) await this.assertLive();
      reply = await this.proxy.request(message.pattern, data);
    } catch (error) {
      const serviceError = this.toServiceError(error, message.pattern);
      sent(serviceError.code === 'timeout' || serviceError.code === 'unavailable' ? serviceError.code : 'error');
      throw serviceError;
    }
    const parsed = message.response.safeParse(reply);
    if (!parsed.success) {
      this.logger.error({ pattern: message.pattern, issues: parsed.error.issues.slice(0, 5) }, 'reply broke its contract');
      sent('error');
      throw ServiceError.of('internal', `${this.service} answered ${message.pattern} outside its contract`);
    }
    sent('ok');
    return parsed.data as ResponseOf<M>;
  }

  /**
   * Publishes an event: durable in the event stream until every subscribing service's group has read it,
   * whether or not a subscriber runs right now. Resolves once Redis has it.
   */
  async emit<M extends MessageDefinition>(message: M, data: RequestOf<M>): Promise<void> {
    try {
      await firstValueFrom(this.proxy.emit(message.pattern, data));
    } catch (error) {
      throw this.toServiceError(error, message.pattern);
    }
  }

  /**
   * Events this client's service has not processed yet (not read, or read and not acked); undefined
   * while the service has never subscribed. Zero means every event published so far was handled.
   */
  async eventBacklog(): Promise<number | undefined> {
    await this.proxy.connect();
    const backlog = await groupBacklog(this.proxy.unwrap(), StreamKeys.events, this.service);
    return backlog && backlog.lag + backlog.pending;
  }

  async close(): Promise<void> {
    await this.proxy.close();
  }

  private async assertLive(): Promise<void> {
    await this.proxy.connect();
    let live: boolean;
    try {
      live = await this.liveness.isLive();
    } catch {
      throw ServiceError.of('unavailable', 'the message broker does not answer', { retry_after_seconds: 5 });
    }
    if (!live) throw ServiceError.of('unavailable', `the ${this.service} service is not running`, { retry_after_seconds: 5 });
  }

  private toServiceError(error: unknown, pattern: string): ServiceError {
    if (error instanceof ServiceError) return error;
    if (error instanceof RequestTimeout) {
      this.liveness.forget();
      return ServiceError.of('timeout', `the ${this.service} service did not answer within ${this.options.timeoutMs} ms`);
    }
    if (error instanceof Error) {
      this.logger.warn(`${pattern}: ${error.message}`);
      return ServiceError.of('unavailable', `the ${this.service} service cannot be reached`, { retry_after_seconds: 5 });
    }
    return ServiceError.fromWire(error);
  }
}
