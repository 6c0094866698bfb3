import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { BalanceRepository } from './balance.repository';

/**
 * Returns the tokens of reservations nobody settled, in pools nobody is calling (busy pools are swept
 * by their own reserve and settle scripts). It keeps no state: the deadlines live in Redis, so any
 * replica may sweep and several may sweep at once.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReservationSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly balances: BalanceRepository,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'SWEEP_INTERVAL_SECONDS'>,
  ) {}

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.tick(), this.config.SWEEP_INTERVAL_SECONDS * 1_000);
    this.timer.unref();
  }

  async onApplicationShutdown() {
    clearInterval(this.timer);
    await this.running?.catch(() => 0);
  }

  /** One pass over every pool with reservations in flight; returns how many expired reservations it looked at. */
  async sweepOnce(): Promise<number> {
    let due = 0;
    for await (const poolId of this.balances.holdingPools()) due += await this.balances.sweep(poolId);
    return due;
  }

  private async tick() {
    if (this.running) return;
    this.running = this.sweepOnce();
    try {
      const due = await this.running;
      if (due > 0) this.logger.log(`returned the tokens of ${due} expired reservation(s)`);
    } catch (error) {
      this.logger.warn(`sweep failed, will retry: ${(error as Error).message}`);
    } finally {
      this.running = undefined;
    }
  }
}
