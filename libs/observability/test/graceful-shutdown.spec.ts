import { request } from 'node:http';
import { Controller, Get, Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp, HealthController, HealthModule, MetricsModule, type GracefulShutdown } from '../src';

/** What happened, in order: the shutdown must close the modules only after the work in flight is answered. */
const events: string[] = [];
let releaseSlow: () => void = () => undefined;
let slowEntered: () => void = () => undefined;

@Controller()
class SlowController {
  @Get('slow')
  async slow() {
    slowEntered();
    await new Promise<void>((resolve) => (releaseSlow = resolve));
    events.push('request answered');
    return { done: true };
  }
}

/** Stands for a Redis connection: closed by a destroy hook. */
@Injectable()
class Connection implements OnModuleDestroy {
  onModuleDestroy() {
    events.push('connection closed');
  }
}

@Module({ imports: [MetricsModule, HealthModule.register({ useValue: [] })], controllers: [SlowController], providers: [Connection] })
class TestAppModule {}

function get(port: number, path: string): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('graceful shutdown', () => {
  let app: NestExpressApplication;
  let shutdown: GracefulShutdown;
  let port: number;

  beforeAll(async () => {
    ({ app, shutdown } = await createHttpApp(TestAppModule, { service: 'test', logLevel: 'silent', shutdownTimeoutMs: 10_000 }));
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  });

  it('turns readiness false, takes no new work, answers the work in flight, and only then closes the modules', async () => {
    expect((await get(port, '/readyz')).status).toBe(200);
    let workerDone: () => void = () => undefined;
    shutdown.drains({
      name: 'worker',
      stop: () => new Promise<void>((resolve) => (workerDone = resolve)).then(() => void events.push('worker stopped')),
    });
    const entered = new Promise<void>((resolve) => (slowEntered = resolve));
    const inFlight = get(port, '/slow');
    await entered;

    const closed = shutdown.shutdown(app, 'test');
    // Readiness is false from the first moment (the probe is answered from the controller: the port is closed).
    const probe = { status: (code: number) => (probe.code = code), code: 0 };
    await app.get(HealthController).ready(probe as never);
    expect(probe.code).toBe(503);
    // No new connection is accepted.
    await expect(get(port, '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(events).toEqual([]);

    releaseSlow();
    const answered = await inFlight;
    expect(answered).toMatchObject({ status: 200, connection: 'close' });
    workerDone();
    await closed;
    expect(events).toEqual(['request answered', 'worker stopped', 'connection closed']);
  });
});
