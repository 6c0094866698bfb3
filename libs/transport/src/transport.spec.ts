import { Controller, type INestMicroservice } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { defineMessage } from '@adintel/contracts';
import { currentRequestId, runWithRequestId } from '@adintel/observability';
import { z } from 'zod';
import { channelNamespace, createTransportServer, HandleMessage, RpcErrorFilter, ServiceClient, ServiceError } from './index';

// A real Redis on REDIS_URL (npm test makes sure one runs); each run uses its own patterns.
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const run = `t${process.pid}${Date.now()}`;

const Echo = defineMessage(`${run}.echo`, z.object({ text: z.string().min(1) }), z.object({ text: z.string(), request_id: z.string().nullable() }));
const Fail = defineMessage(`${run}.fail`, z.object({ how: z.enum(['not_found', 'crash']) }), z.object({}));
const Slow = defineMessage(`${run}.slow`, z.object({ ms: z.int() }), z.object({}));
const Lying = defineMessage(`${run}.lying`, z.object({}), z.object({ count: z.int() }));
const Nobody = defineMessage(`${run}.nobody`, z.object({}), z.object({}));

@Controller()
class TestHandlers {
  @HandleMessage(Echo)
  echo(@Payload() data: { text: string }) {
    return { text: data.text, request_id: currentRequestId() ?? null };
  }

  @HandleMessage(Fail)
  fail(@Payload() data: { how: string }) {
    if (data.how === 'not_found') throw ServiceError.notFound('ad', '42');
    throw new TypeError('secret internals');
  }

  @HandleMessage(Slow)
  async slow(@Payload() data: { ms: number }) {
    await new Promise((resolve) => setTimeout(resolve, data.ms));
    return {};
  }

  @HandleMessage(Lying)
  lying() {
    return { count: 'many' };
  }
}

describe('the transport over a real Redis', () => {
  let server: INestMicroservice;
  let client: ServiceClient;
  let impatient: ServiceClient;

  beforeAll(async () => {
    const module = await Test.createTestingModule({ controllers: [TestHandlers] }).compile();
    server = module.createNestMicroservice(createTransportServer(REDIS_URL));
    server.useGlobalFilters(new RpcErrorFilter());
    server.useLogger(false);
    await server.listen();
    // Generous for every answer on a busy machine; the timeout test uses its own impatient client.
    client = new ServiceClient({ service: 'test', redisUrl: REDIS_URL, timeoutMs: 5_000 });
    impatient = new ServiceClient({ service: 'test', redisUrl: REDIS_URL, timeoutMs: 200 });
  });

  afterAll(async () => {
    await client.close();
    await impatient.close();
    await server.close();
  });

  it('answers a message with its validated reply', async () => {
    await expect(client.send(Echo, { text: 'hi' })).resolves.toEqual({ text: 'hi', request_id: expect.any(String) });
  });

  it('carries the caller’s request id in packet metadata', async () => {
    const reply = await runWithRequestId('req-123', () => client.send(Echo, { text: 'hi' }));
    expect(reply.request_id).toBe('req-123');
  });

  it('validates at the receiving boundary and names the bad field', async () => {
    const error = await client.send(Echo, { text: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'text' }] });
  });

  it('returns typed errors, and hides unexpected ones as internal', async () => {
    await expect(client.send(Fail, { how: 'not_found' })).rejects.toMatchObject({ code: 'not_found', status: 404 });
    const crash = (await client.send(Fail, { how: 'crash' }).catch((e: unknown) => e)) as ServiceError;
    expect(crash.payload).toEqual({ code: 'internal', message: 'the service failed unexpectedly' });
  });

  it('times out instead of hanging', async () => {
    await expect(impatient.send(Slow, { ms: 900 })).rejects.toMatchObject({ code: 'timeout', status: 504 });
  });

  it('fails fast when nobody serves the pattern, instead of waiting for its timeout', async () => {
    const started = Date.now();
    await expect(client.send(Nobody, {})).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    expect(Date.now() - started).toBeLessThan(2_500); // the client would wait 5,000 ms for an answer
  });

  it('refuses a reply that breaks its contract', async () => {
    await expect(client.send(Lying, {})).rejects.toMatchObject({ code: 'internal' });
  });

  it('keeps each Redis database a separate environment: a service on db 0 does not hear db 5', async () => {
    expect(channelNamespace('redis://127.0.0.1:6379')).toBe('');
    expect(channelNamespace('redis://127.0.0.1:6379/5')).toBe('db5:');
    const otherDb = new ServiceClient({ service: 'test', redisUrl: `${REDIS_URL.replace(/\/\d+$/, '')}/5`, timeoutMs: 300 });
    try {
      await expect(otherDb.send(Echo, { text: 'hi' })).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      await otherDb.close();
    }
  });
});

describe('the transport on a non-zero database', () => {
  it('round-trips with namespaced channels', async () => {
    const url = `${REDIS_URL.replace(/\/\d+$/, '')}/6`;
    const module = await Test.createTestingModule({ controllers: [TestHandlers] }).compile();
    const server = module.createNestMicroservice(createTransportServer(url));
    server.useLogger(false);
    await server.listen();
    const client = new ServiceClient({ service: 'test', redisUrl: url, timeoutMs: 5_000 });
    try {
      await expect(client.send(Echo, { text: 'db6' })).resolves.toMatchObject({ text: 'db6' });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
