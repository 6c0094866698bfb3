import { Controller, Get, HttpStatus, Inject, Module, Res, type DynamicModule, type InjectionToken } from '@nestjs/common';
import type { Response } from 'express';
import { isShuttingDown } from './graceful-shutdown';

/** A dependency the app needs to be useful: resolves when it answers, rejects when it does not. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<unknown>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
const CHECK_TIMEOUT_MS = 2_000;

@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[]) {}

  /** Alive: the process serves HTTP. */
  @Get('healthz')
  live() {
    return { status: 'ok' };
  }

  /** Ready: every dependency answers in time, and the process is not shutting down (it takes no new work then). */
  @Get('readyz')
  async ready(@Res({ passthrough: true }) res: Response) {
    if (isShuttingDown()) {
      res.status(HttpStatus.SERVICE_UNAVAILABLE);
      return { status: 'shutting_down', checks: {} };
    }
    const results = await Promise.all(this.checks.map((c) => runCheck(c)));
    const ready = results.every((r) => r.ok);
    res.status(ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results.map((r) => [r.name, r])) };
  }
}

async function runCheck(check: ReadinessCheck) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    });
    const detail = await Promise.race([check.check(), timeout]);
    return { name: check.name, ok: true, latency_ms: Math.round(performance.now() - started), ...(detail && typeof detail === 'object' ? { detail } : {}) };
  } catch (error) {
    return { name: check.name, ok: false, error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export type ReadinessChecksProvider =
  | { useValue: ReadinessCheck[] }
  | { useFactory: (...deps: never[]) => ReadinessCheck[]; inject?: InjectionToken[] };

/** `/healthz` and `/readyz`; `checks` yields the app's readiness checks, with their dependencies injected. */
@Module({})
export class HealthModule {
  static register(checks: ReadinessChecksProvider): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [{ ...checks, provide: READINESS_CHECKS }],
    };
  }
}
