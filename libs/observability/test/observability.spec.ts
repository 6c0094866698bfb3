import { Writable } from 'node:stream';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';
import { createLogger, HealthModule, NestPinoLogger, requestIdFrom, runWithRequestId, type ReadinessCheck } from '../src/index';

function captureLines() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l)));
      done();
    },
  });
  return { lines, stream };
}

describe('JSON logs', () => {
  it('stamps every line with the service, and with the request id inside a request', () => {
    const { lines, stream } = captureLines();
    const logger = createLogger('query-api', 'info', stream);
    logger.info('outside');
    runWithRequestId('req-7', () => logger.info({ rows: 3 }, 'inside'));
    expect(lines[0]).toMatchObject({ service: 'query-api', level: 'info', msg: 'outside' });
    expect(lines[0]).not.toHaveProperty('request_id');
    expect(lines[1]).toMatchObject({ service: 'query-api', request_id: 'req-7', rows: 3, msg: 'inside' });
    expect(typeof lines[1]?.['time']).toBe('string');
  });

  it('routes Nest log calls with their context and errors with their stack', () => {
    const { lines, stream } = captureLines();
    const nest = new NestPinoLogger(createLogger('metering', 'info', stream));
    nest.log('started', 'Bootstrap');
    nest.error(new Error('boom'), 'Handler');
    expect(lines[0]).toMatchObject({ msg: 'started', context: 'Bootstrap', level: 'info' });
    expect(lines[1]).toMatchObject({ msg: 'boom', context: 'Handler', level: 'error', err: { message: 'boom' } });
  });

  it('keeps a safe caller-supplied request id and replaces anything else', () => {
    expect(requestIdFrom('abc-123')).toBe('abc-123');
    expect(requestIdFrom('bad id\nwith newline')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom('x'.repeat(200))).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('health endpoints', () => {
  let app: INestApplication;
  const state = { redisUp: true };
  const checks: ReadinessCheck[] = [
    { name: 'redis', check: async () => { if (!state.redisUp) throw new Error('connection refused'); } },
    { name: 'store', check: async () => ({ ads: 10 }) },
  ];

  beforeAll(async () => {
    const module = await Test.createTestingModule({ imports: [HealthModule.register({ useValue: checks })] }).compile();
    app = module.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  const get = async (path: string) => {
    const res = await fetch(`${await app.getUrl()}${path}`);
    return { status: res.status, body: await res.json() };
  };

  it('answers /healthz while the process lives', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('answers /readyz 200 when every dependency answers and 503 naming the one that does not', async () => {
    state.redisUp = true;
    expect(await get('/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { redis: { ok: true }, store: { ok: true, detail: { ads: 10 } } } },
    });
    state.redisUp = false;
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: { status: 'not_ready', checks: { redis: { ok: false, error: 'connection refused' }, store: { ok: true } } },
    });
  });
});
