import { Controller, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { defineMessage, ServiceError } from '@adintel/contracts';
import { startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import { z } from 'zod';
import { HandleMessage, serveTransport, ServiceClient } from '../src';

const Refuse = defineMessage('hybrid.refuse', z.object({ n: z.int() }), z.object({}));

@Controller()
class HybridHandlers {
  @HandleMessage(Refuse)
  refuse() {
    throw ServiceError.insufficientBalance({ needed: 10, remaining: 3, max_affordable_limit: 3 });
  }
}

describe('serveTransport on a hybrid HTTP app', () => {
  let redis: PrivateRedis;
  let app: INestApplication;
  let client: ServiceClient;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const module = await Test.createTestingModule({ controllers: [HybridHandlers] }).compile();
    app = module.createNestApplication({ logger: false });
    // TRANSPORT_URL names the broker; REDIS_URL (the data Redis) is unused by the transport then.
    await serveTransport(app, 'metering', { REDIS_URL: 'redis://127.0.0.1:1', TRANSPORT_URL: redis.url, TRANSPORT_TIMEOUT_MS: 2_000 }, { drains: () => undefined });
    await app.init();
    client = new ServiceClient({ service: 'metering', url: redis.url, timeoutMs: 2_000 });
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
    await redis?.stop();
  });

  it('answers typed errors, not `internal`', async () => {
    const error = (await client.send(Refuse, { n: 1 }).catch((e: unknown) => e)) as ServiceError;
    expect(error.payload).toMatchObject({ code: 'insufficient_balance', balance: { needed: 10, remaining: 3, max_affordable_limit: 3 } });
    const invalid = (await client.send(Refuse, { n: 1.5 }).catch((e: unknown) => e)) as ServiceError;
    expect(invalid.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'n' }] });
  });
});
