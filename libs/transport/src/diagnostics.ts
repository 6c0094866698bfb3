import { channel } from 'node:diagnostics_channel';

/** Published once per message a server handled (metrics subscribe; the transport does not know prom-client). */
export const TRANSPORT_HANDLED_CHANNEL = 'adintel:transport:handled';
/** Published once per request a client sent, when its outcome is known. */
export const TRANSPORT_SENT_CHANNEL = 'adintel:transport:sent';

export interface TransportHandledEvent {
  readonly pattern: string;
  readonly outcome: 'ok' | 'error' | 'expired';
  readonly durationMs: number;
}

export interface TransportSentEvent {
  readonly pattern: string;
  readonly outcome: 'ok' | 'error' | 'timeout' | 'unavailable';
  readonly durationMs: number;
}

const handled = channel(TRANSPORT_HANDLED_CHANNEL);
const sent = channel(TRANSPORT_SENT_CHANNEL);

export function publishHandled(event: TransportHandledEvent): void {
  if (handled.hasSubscribers) handled.publish(event);
}

export function publishSent(event: TransportSentEvent): void {
  if (sent.hasSubscribers) sent.publish(event);
}
