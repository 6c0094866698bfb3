import type { MessageDefinition } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';

type Handler = (data: Record<string, unknown>) => unknown;

/**
 * Stands in for a ServiceClient (the gateway's I/O boundary to query-api and metering).
 * Answers are checked against the message's response schema, as the real client does,
 * so a fake cannot answer what the real service could not.
 */
export class FakeService {
  readonly received: { pattern: string; data: Record<string, unknown> }[] = [];
  private readonly handlers = new Map<string, Handler>();
  private readonly gates = new Map<string, () => Promise<unknown>>();
  /** When set, every call fails with it (service down, timeout...). */
  failure: ServiceError | undefined;

  constructor(readonly service: string) {}

  on(message: MessageDefinition, handler: Handler): this {
    this.handlers.set(message.pattern, handler);
    return this;
  }

  /** Calls of `message` wait for `open()` before they are handled (it may also check what was sent meanwhile). */
  gate(message: MessageDefinition, open: (() => Promise<unknown>) | undefined): this {
    if (open) this.gates.set(message.pattern, open);
    else this.gates.delete(message.pattern);
    return this;
  }

  async send(message: MessageDefinition, data: Record<string, unknown>): Promise<unknown> {
    this.received.push({ pattern: message.pattern, data });
    await this.gates.get(message.pattern)?.();
    return this.answer(message, data);
  }

  private async answer(message: MessageDefinition, data: Record<string, unknown>): Promise<unknown> {
    if (this.failure) throw this.failure;
    const handler = this.handlers.get(message.pattern);
    if (!handler) throw ServiceError.of('unavailable', `${this.service} does not serve ${message.pattern}`, { retry_after_seconds: 5 });
    const reply = await handler(message.request.parse(data) as Record<string, unknown>);
    return message.response.parse(reply);
  }

  calls(message: MessageDefinition) {
    return this.received.filter((r) => r.pattern === message.pattern).map((r) => r.data);
  }

  async close(): Promise<void> {
    // nothing to release
  }
}
