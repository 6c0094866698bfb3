import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { ServiceName } from '@adintel/contracts';
import { ClientBroker } from './reply-inbox';
import { STREAM_LIMITS, StreamKeys } from './stream-keys';
import { encodeMessage, type MessageMetadata } from './wire';

export interface StreamsClientOptions {
  readonly service: ServiceName;
  readonly url: string;
  /** The caller's timeout; each request carries `now + timeoutMs` as its deadline. */
  readonly timeoutMs: number;
}

/**
 * The NestJS ClientProxy of the transport: `send()` appends a request (with its deadline and the process's
 * reply stream) to the service's request stream; `emit()` appends an event to the event stream.
 */
export class StreamsClientProxy extends ClientProxy {
  private broker?: ClientBroker;

  constructor(private readonly options: StreamsClientOptions) {
    super();
  }

  async connect(): Promise<void> {
    this.broker ??= ClientBroker.acquire(this.options.url);
  }

  async close(): Promise<void> {
    const broker = this.broker;
    this.broker = undefined;
    await broker?.release();
  }

  unwrap<T>(): T {
    return this.broker?.commands as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const broker = this.openBroker();
    const { id } = this.assignPacketId(packet);
    const stopWaiting = broker.expect(id, (reply) =>
      callback('err' in reply ? { err: reply.err, isDisposed: true } : { response: reply.ok, isDisposed: true }),
    );
    const fields = encodeMessage({
      pattern: this.normalizePattern(packet.pattern),
      data: packet.data,
      metadata: (packet.metadata ?? {}) as MessageMetadata,
      reply: { id, to: broker.inbox, deadline: Date.now() + this.options.timeoutMs },
    });
    broker.commands
      .xadd(StreamKeys.requests(this.options.service), 'MAXLEN', '~', STREAM_LIMITS.requestsMaxLen, '*', ...fields)
      .catch((error: Error) => {
        stopWaiting();
        callback({ err: error, isDisposed: true });
      });
    return stopWaiting;
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const broker = this.openBroker();
    const fields = encodeMessage({
      pattern: this.normalizePattern(packet.pattern),
      data: packet.data,
      metadata: (packet.metadata ?? {}) as MessageMetadata,
    });
    return (await broker.commands.xadd(StreamKeys.events, 'MAXLEN', '~', STREAM_LIMITS.eventsMaxLen, '*', ...fields)) as T;
  }

  private openBroker(): ClientBroker {
    this.broker ??= ClientBroker.acquire(this.options.url);
    return this.broker;
  }
}
