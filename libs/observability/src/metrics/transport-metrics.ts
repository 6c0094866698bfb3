import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Counter, Histogram } from 'prom-client';

/**
 * Diagnostics channels the transport publishes on: one message per handled request (server side) and
 * per sent request (client side). Subscribing here keeps the transport free of any metrics library.
 */
export const TRANSPORT_HANDLED_CHANNEL = 'adintel:transport:handled';
export const TRANSPORT_SENT_CHANNEL = 'adintel:transport:sent';

/** What the transport publishes on both channels. */
export interface TransportEvent {
  readonly pattern: string;
  readonly outcome: string;
  readonly durationMs: number;
}

const DIRECTIONS = { [TRANSPORT_HANDLED_CHANNEL]: 'handled', [TRANSPORT_SENT_CHANNEL]: 'sent' } as const;

function isTransportEvent(message: unknown): message is TransportEvent {
  const event = message as Partial<TransportEvent> | null;
  return typeof event?.pattern === 'string' && typeof event.outcome === 'string' && typeof event.durationMs === 'number';
}

/** Counts and times every transport message; returns the function that stops listening. */
export function recordTransportMessages(messages: Counter<string>, durations: Histogram<string>): () => void {
  const listeners = Object.entries(DIRECTIONS).map(([channel, direction]) => {
    const listener = (message: unknown) => {
      if (!isTransportEvent(message)) return;
      const labels = { direction, pattern: message.pattern, outcome: message.outcome };
      messages.inc(labels);
      durations.observe(labels, message.durationMs / 1000);
    };
    subscribe(channel, listener);
    return () => unsubscribe(channel, listener);
  });
  return () => listeners.forEach((stop) => stop());
}
