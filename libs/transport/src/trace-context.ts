import { AsyncLocalStorage } from 'node:async_hooks';
import { randomHex } from '@adintel/observability';

/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) carried in message metadata, ready for a tracer:
 * a handler runs inside the traceparent it received, and the messages it sends continue the same trace
 * with a new span id.
 */
const storage = new AsyncLocalStorage<string>();
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function runWithTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  return traceparent && TRACEPARENT.test(traceparent) ? storage.run(traceparent, fn) : fn();
}

export function currentTraceparent(): string | undefined {
  return storage.getStore();
}

/** The traceparent of an outgoing message: a child span of the current trace, or a new trace. */
export function childTraceparent(parent = currentTraceparent()): string {
  const match = parent ? TRACEPARENT.exec(parent) : null;
  const traceId = match?.[1] ?? randomHex(16);
  const flags = match?.[3] ?? '01';
  return `00-${traceId}-${randomHex(8)}-${flags}`;
}
