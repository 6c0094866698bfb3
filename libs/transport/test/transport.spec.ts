import { ServiceError } from '@adintel/contracts';
import { runWithRequestId } from '@adintel/observability';
import { Redis } from '@adintel/redis';
import { startPrivateRedis, waitUntil, type PrivateRedis } from '@adintel/testing';
import { firstValueFrom } from 'rxjs';
import { childTraceparent, runWithTraceparent, ServiceClient, StreamKeys, StreamsClientProxy } from '../src';
import { Echo, Fail, Lying, Slow, startReplica, Unserializable, Unserved, type Replica } from './handlers';

jest.setTimeout(30_000);

describe('the Streams transport over a real Redis', () => {
  let redis: PrivateRedis;
  let replica: Replica;
  let client: ServiceClient;
  let impatient: ServiceClient;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    replica = await startReplica('r1', { url: redis.url, claimIdleMs: 1_000, livenessWindowMs: 3_000 });
    // Generous for every answer on a busy machine; the timeout test uses its own impatient client.
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 5_000 });
    impatient = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 200 });
  });

  afterAll(async () => {
    await client?.close();
    await impatient?.close();
    await replica?.close();
    await redis?.stop();
  });

  it('answers a message with its validated reply', async () => {
    await expect(client.send(Echo, { text: 'hi' })).resolves.toMatchObject({ text: 'hi', replica: 'r1' });
  });

  it('carries the caller’s request id and a W3C traceparent in the message metadata', async () => {
    const reply = await runWithRequestId('req-123', () => client.send(Echo, { text: 'hi' }));
    expect(reply.request_id).toBe('req-123');
    expect(reply.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it('continues the caller’s trace: same trace id, a new span id', async () => {
    const parent = childTraceparent();
    const reply = await runWithTraceparent(parent, () => client.send(Echo, { text: 'hi' }));
    const [, traceId, spanId] = parent.split('-');
    expect(reply.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(reply.traceparent).not.toContain(spanId);
  });

  it('serves a Nest user of ClientProxy.send() through the same path, metadata included', async () => {
    const proxy = new StreamsClientProxy({ service: 'query', url: redis.url, timeoutMs: 5_000 });
    try {
      const reply = await runWithRequestId('req-nest', () => firstValueFrom(proxy.send(Echo.pattern, { text: 'nest' })));
      expect(reply).toMatchObject({ text: 'nest', request_id: 'req-nest', replica: 'r1' });
      await expect(firstValueFrom(proxy.send(Fail.pattern, { how: 'not_found' }))).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await proxy.close();
    }
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

  it('answers a reply JSON cannot carry with an internal error, and goes on serving', async () => {
    const error = (await client.send(Unserializable, {}).catch((e: unknown) => e)) as ServiceError;
    expect(error.payload).toEqual({ code: 'internal', message: 'the service failed unexpectedly' });
    await expect(client.send(Echo, { text: 'still here' })).resolves.toMatchObject({ text: 'still here' });
  });

  it('answers a pattern the service does not serve with an error, not silence', async () => {
    await expect(client.send(Unserved, {})).rejects.toMatchObject({ code: 'internal' });
  });

  it('fails fast when no replica of the service runs, instead of waiting for its timeout', async () => {
    const metering = new ServiceClient({ service: 'metering', url: redis.url, timeoutMs: 5_000 });
    try {
      const started = Date.now();
      await expect(metering.send(Echo, { text: 'x' })).rejects.toMatchObject({ code: 'unavailable', status: 503 });
      expect(Date.now() - started).toBeLessThan(2_500); // the client would wait 5,000 ms for an answer
    } finally {
      await metering.close();
    }
  });

  it('refuses a reply that breaks its contract', async () => {
    await expect(client.send(Lying, {})).rejects.toMatchObject({ code: 'internal' });
  });

  it('keeps each Redis database a separate environment: a service on db 0 does not hear db 5', async () => {
    const otherDb = new ServiceClient({ service: 'query', url: `${redis.url}/5`, timeoutMs: 300 });
    try {
      await expect(otherDb.send(Echo, { text: 'hi' })).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      await otherDb.close();
    }
  });

  it('answers and acks without waiting out its own blocked read (replies before the read, or beside it)', async () => {
    // A read that blocks for a minute: a reply held back for the next read, or an ack queued behind it, would
    // time these calls out. Sync handlers' replies ride with the next read; a slow one's goes out while it blocks.
    const patient = await startReplica('long-block', { service: 'metering', url: redis.url, claimIdleMs: 1_000, livenessWindowMs: 3_000, blockMs: 60_000 });
    const metering = new ServiceClient({ service: 'metering', url: redis.url, timeoutMs: 5_000 });
    const probe = new Redis(redis.url);
    try {
      for (let i = 0; i < 20; i++) await expect(metering.send(Echo, { text: `s${i}` })).resolves.toMatchObject({ replica: 'long-block' });
      await expect(metering.send(Slow, { ms: 50 })).resolves.toEqual({ replica: 'long-block' });
      // Redis ran each ack with its reply, before it sent the reply on: nothing is left pending.
      expect(((await probe.xpending(StreamKeys.requests('metering'), 'metering')) as [number])[0]).toBe(0);
    } finally {
      probe.disconnect();
      await metering.close();
      await patient.close();
    }
  });

  it('acks what it answered, and gives every reply stream an expiry', async () => {
    const probe = new Redis(redis.url);
    try {
      await Promise.all(Array.from({ length: 50 }, (_, i) => client.send(Echo, { text: `n${i}` })));
      // The slow request of the timeout test finishes too, and is acked then.
      await waitUntil(async () => ((await probe.xpending(StreamKeys.requests('query'), 'query')) as [number])[0] === 0);
      const replyStreams = await probe.keys('transport:replies:*');
      expect(replyStreams.length).toBeGreaterThan(0);
      for (const key of replyStreams) expect(await probe.pttl(key)).toBeGreaterThan(0);
    } finally {
      probe.disconnect();
    }
  });
});
