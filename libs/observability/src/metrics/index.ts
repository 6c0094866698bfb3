export * from './app-metrics';
export * from './metric-definitions';
export * from './metrics.module';
export { routeLabel } from './http-metrics';
export { TRANSPORT_HANDLED_CHANNEL, TRANSPORT_SENT_CHANNEL, type TransportEvent } from './transport-metrics';
