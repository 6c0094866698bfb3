import type { ServiceName } from '@adintel/contracts';
import type { Redis } from '@adintel/redis';
import { StreamKeys } from './stream-keys';

/**
 * Whether some replica of a service is alive: one refreshed `transport:<service>:alive` within the liveness
 * window. Replicas refresh it from a timer only while their event loop runs and their handlers make progress,
 * so this also notices a FROZEN or hung service: callers get `unavailable` at once instead of queueing work
 * that waits out their timeout. It recovers by itself as soon as a replica beats again.
 *
 * The answer is cached and refreshed in the background, off the critical path of a call.
 */
export class ServiceLiveness {
  private live?: boolean;
  private checkedAt = 0;
  private refreshing?: Promise<boolean>;

  constructor(
    private readonly redis: () => Redis,
    private readonly service: ServiceName,
    private readonly refreshMs: number,
  ) {}

  /**
   * A recent "alive" is answered from the cache (refreshed in the background once older than refreshMs, so a
   * busy caller pays no round trip); an older one, and every "not alive", is checked again first, so a
   * service that comes back is used at once and a dead one is noticed within 2 x refreshMs.
   */
  async isLive(): Promise<boolean> {
    return this.knownLive() || this.refresh();
  }

  /**
   * The synchronous part of `isLive()`: true when a recent check said "alive" (then no await is needed on a
   * call's path); false when the caller must `await isLive()`.
   */
  knownLive(): boolean {
    const age = Date.now() - this.checkedAt;
    if (!this.live || age > 2 * this.refreshMs) return false;
    if (age > this.refreshMs) void this.refresh().catch(() => undefined);
    return true;
  }

  /** Forget the cached answer (after a timeout): the next call checks again before sending. */
  forget(): void {
    this.live = undefined;
  }

  private refresh(): Promise<boolean> {
    this.refreshing ??= this.redis()
      .exists(StreamKeys.alive(this.service))
      .then((count) => {
        this.live = count > 0;
        this.checkedAt = Date.now();
        return this.live;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }
}
