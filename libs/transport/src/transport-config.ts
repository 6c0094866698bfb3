/** The part of an app's config the transport reads (`baseConfigShape` of @adintel/config has all three). */
export interface TransportConfig {
  readonly REDIS_URL: string;
  /** The broker; unset means the app's REDIS_URL. */
  readonly TRANSPORT_URL?: string | undefined;
  readonly TRANSPORT_TIMEOUT_MS: number;
}

export const brokerUrl = (config: TransportConfig): string => config.TRANSPORT_URL ?? config.REDIS_URL;

/**
 * How long a pending entry stays with a silent replica before a live one claims it: a third of the callers'
 * timeout (so a claimed request still has two thirds of its time left), between 0.5 and 3 seconds.
 */
export const claimIdleMs = (config: TransportConfig): number => Math.min(3_000, Math.max(500, Math.floor(config.TRANSPORT_TIMEOUT_MS / 3)));

/** No replica heartbeat within this long: the service is down, frozen or hung, and calls fail fast (503). */
export const LIVENESS_WINDOW_MS = 3_000;
