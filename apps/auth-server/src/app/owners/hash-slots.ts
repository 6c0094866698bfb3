import { LoginThrottledError } from './login-throttle';

/**
 * Password hashes running at once in this process, and waiting: each scrypt holds 32 MiB for ~50-100 ms, so a burst
 * of sign-ins must not start them all together (the pod has 256 Mi). A hash beyond `running + waiting` is refused
 * as a throttled sign-in (429, retry in a second) rather than queued without end. Its attempt was already counted.
 */
export class HashSlots {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly limits: { readonly running: number; readonly waiting: number },
    private readonly onRefused: () => void = () => undefined,
  ) {}

  async run<T>(hash: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.running) {
      if (this.queue.length >= this.limits.waiting) {
        this.onRefused();
        throw new LoginThrottledError(1);
      }
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await hash();
    } finally {
      // The slot passes straight to the next waiter, so `running` never exceeds the limit.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
