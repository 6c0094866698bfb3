import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { ServiceName } from '@adintel/contracts';
import { currentRequestId } from '@adintel/observability';
import { ClientBroker } from './reply-inbox';
import { STREAM_LIMITS, StreamKeys } from './stream-keys';
import { childTraceparent } from './trace-context';
import { encodeMessage, type MessageMetadata, type WireReply } from './wire';

export interface StreamsClientOptions {
  readonly service: ServiceName;
  readonly url: string;
  /** The caller's timeout; each request carries `now + timeoutMs` as its deadline. */
  readonly timeoutMs: number;
}

/** `request()` got no reply within the client's timeout. */
export class RequestTimeout extends Error {
  constructor(pattern: string, timeoutMs: number) {
    super(`no reply to ${pattern} within ${timeoutMs} ms`);
    this.name = 'RequestTimeout';
  }
}

/**
 * The NestJS ClientProxy of the transport: `send()` appends a request (with its deadline and the process's
 * reply stream) to the service's request stream; `emit()` appends an event to the event stream.
 * `request()` is the same send as a plain promise, with the client's timeout: ServiceClient uses it, so a call
 * costs no rxjs pipeline. Both go through `dispatch()`.
 */
export class StreamsClientProxy extends ClientProxy {
  private broker?: ClientBroker;

  constructor(private readonly options: StreamsClientOptions) {
    super();
  }

  async connect(): Promise<void> {
    this.openBroker();
  }

  async close(): Promise<void> {
    const broker = this.broker;
    this.broker = undefined;
    await broker?.release();
  }

  unwrap<T>(): T {
    return this.broker?.commands as T;
  }

  /**
   * Sends a request and resolves with the reply's payload. Rejects with the service's error payload as it came
   * (a ServiceErrorPayload), with RequestTimeout after the client's timeout, or with the broker's error.
   */
  request(pattern: string, data: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stopWaiting();
        reject(new RequestTimeout(pattern, this.options.timeoutMs));
      }, this.options.timeoutMs);
      const stopWaiting = this.dispatch(pattern, data, undefined, (reply) => {
        clearTimeout(timer);
        if (reply instanceof Error) reject(reply);
        else if ('err' in reply) reject(reply.err);
        else resolve(reply.ok);
      });
    });
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    return this.dispatch(this.normalizePattern(packet.pattern), packet.data, packet.metadata as MessageMetadata | undefined, (reply) =>
      callback(reply instanceof Error || 'err' in reply ? { err: reply instanceof Error ? reply : reply.err, isDisposed: true } : { response: reply.ok, isDisposed: true }),
    );
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const broker = this.openBroker();
    const fields = encodeMessage({
      pattern: this.normalizePattern(packet.pattern),
      data: packet.data,
      metadata: (packet.metadata as MessageMetadata | undefined) ?? outgoingMetadata(),
    });
    return (await broker.commands.xadd(StreamKeys.events, 'MAXLEN', '~', STREAM_LIMITS.eventsMaxLen, '*', ...fields)) as T;
  }

  /** One XADD; `onOutcome` gets the reply, or the error when Redis refused the request. Returns "stop waiting". */
  private dispatch(pattern: string, data: unknown, metadata: MessageMetadata | undefined, onOutcome: (outcome: WireReply | Error) => void) {
    const broker = this.openBroker();
    const id = broker.nextCorrelationId();
    const stopWaiting = broker.expect(id, onOutcome);
    const fields = encodeMessage({
      pattern,
      data,
      metadata: metadata ?? outgoingMetadata(),
      reply: { id, to: broker.inbox, deadline: Date.now() + this.options.timeoutMs },
    });
    broker.commands
      .xadd(StreamKeys.requests(this.options.service), 'MAXLEN', '~', STREAM_LIMITS.requestsMaxLen, '*', ...fields)
      .catch((error: Error) => {
        stopWaiting();
        onOutcome(error);
      });
    return stopWaiting;
  }

  private openBroker(): ClientBroker {
    this.broker ??= ClientBroker.acquire(this.options.url);
    return this.broker;
  }
}

/** The caller's request id and a child span of its trace: every request and event carries them. */
function outgoingMetadata(): MessageMetadata {
  const requestId = currentRequestId();
  return requestId ? { request_id: requestId, traceparent: childTraceparent() } : { traceparent: childTraceparent() };
}
