import { channel } from 'node:diagnostics_channel';
// The channel names are defined where the metrics subscribe (observability, a layer below the transport):
// `handled` once per message a server handled, `sent` once per request a client sent, when its outcome is known.
import { TRANSPORT_HANDLED_CHANNEL, TRANSPORT_SENT_CHANNEL } from '@adintel/observability';

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
