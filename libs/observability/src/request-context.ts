import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `requestId` as the id every log line and outgoing message of this call carries. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

/** A caller-supplied id is kept when it is safe to log; otherwise a fresh one is made. */
export function requestIdFrom(candidate: unknown): string {
  return typeof candidate === 'string' && ACCEPTABLE_ID.test(candidate) ? candidate : randomUUID();
}
