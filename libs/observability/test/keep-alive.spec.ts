import { Agent, request } from 'node:http';
import { Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp, HealthModule, MetricsModule } from '../src';

@Module({ imports: [MetricsModule, HealthModule.register({ useValue: [] })] })
class TestAppModule {}

/** GET through `agent`: the status and whether the request went out on a connection the agent kept. */
function get(agent: Agent, port: number, path: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('keep-alive connections', () => {
  let app: NestExpressApplication;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    ({ app } = await createHttpApp(TestAppModule, { service: 'test', logLevel: 'silent', shutdownTimeoutMs: 10_000 }));
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  });

  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  it("stay open past Node's 5 s default, so a client (or a proxy) that comes back later is not reset", async () => {
    expect(await get(agent, port, '/healthz')).toEqual({ status: 200, reused: false });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await get(agent, port, '/healthz')).toEqual({ status: 200, reused: true });
  }, 20_000);
});
