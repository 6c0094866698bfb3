import { randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from '@adintel/redis';
import { loadConfig } from '@adintel/config';
import { AccountsService } from '../../src/app/accounts/accounts.service';
import { AppModule } from '../../src/app/app.module';
import { ReservationSweeper } from '../../src/app/balances/reservation-sweeper';
import { ReservationsService } from '../../src/app/balances/reservations.service';
import { Clock } from '../../src/app/clock/clock';
import { UsageService } from '../../src/app/usage/usage.service';
import { appConfigSchema, type AppConfig } from '../../src/config';

/** Metering's own Redis database for tests (1: each app's tests keep their own db); every run also gets its own key prefix. */
export const TEST_REDIS_URL = process.env['METERING_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379/1';

/** A clock the test moves by hand. */
export class FakeClock extends Clock {
  constructor(private current = new Date('2026-03-15T12:00:00.000Z')) {
    super();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(iso: string) {
    this.current = new Date(iso);
  }

  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface Metering {
  readonly module: TestingModule;
  readonly reservations: ReservationsService;
  readonly accounts: AccountsService;
  readonly usage: UsageService;
  readonly sweeper: ReservationSweeper;
  readonly config: AppConfig;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): AppConfig {
  return loadConfig(appConfigSchema, {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: `metering-test:${randomUUID()}:`,
    LOG_LEVEL: 'silent',
    ...env,
  });
}

/** The real app module (real Redis, real scripts) with a hand-moved clock; one call = one "replica". */
export async function startMetering(config: AppConfig, clock: Clock): Promise<Metering> {
  const module = await Test.createTestingModule({ imports: [AppModule.register(config)] })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  module.useLogger(false);
  await module.init();
  return {
    module,
    config,
    reservations: module.get(ReservationsService),
    accounts: module.get(AccountsService),
    usage: module.get(UsageService),
    sweeper: module.get(ReservationSweeper),
    close: () => module.close(),
  };
}

/**
 * Runs `replicas` metering instances (their own connections, one Redis) for the enclosing describe block,
 * handing them over once started; afterwards closes them and deletes the block's keys.
 */
export function meteringForSuite(config: AppConfig, clock: Clock, started: (instances: Metering[]) => void, replicas = 1): void {
  let instances: Metering[] = [];
  beforeAll(async () => {
    instances = await Promise.all(Array.from({ length: replicas }, () => startMetering(config, clock)));
    started(instances);
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await dropPrefix(config.REDIS_KEY_PREFIX);
  });
}

/** The i-th started replica; a suite asking for one it did not start is a mistake in the suite. */
export function replicaAt(instances: readonly Metering[], i: number): Metering {
  const instance = instances[i];
  if (!instance) throw new Error(`replica ${i} asked for, but only ${instances.length} started`);
  return instance;
}

/** Deletes every key of one test prefix. */
export async function dropPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The rejection of a promise, for asserting typed errors. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
