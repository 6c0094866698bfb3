import { Controller, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { defineMessage } from '@adintel/contracts';
import { z } from 'zod';
import { HandleMessage, serveTransport, ServiceClient, ServiceError } from './index';

// A real Redis on REDIS_URL; each run uses its own patterns.
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const run = `h${process.pid}${Date.now()}`;

const Refuse = defineMessage(`${run}.refuse`, z.object({ n: z.int() }), z.object({}));

@Controller()
class HybridHandlers {
  @HandleMessage(Refuse)
  refuse() {
    throw ServiceError.insufficientBalance({ needed: 10, remaining: 3, max_affordable_limit: 3 });
  }
}

describe('serveTransport on a hybrid HTTP app', () => {
  let app: INestApplication;
  let client: ServiceClient;

  beforeAll(async () => {
    const module = await Test.createTestingModule({ controllers: [HybridHandlers] }).compile();
    app = module.createNestApplication({ logger: false });
    await serveTransport(app, REDIS_URL);
    await app.init();
    client = new ServiceClient({ service: 'test', redisUrl: REDIS_URL, timeoutMs: 2_000 });
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('answers typed errors, not `internal`', async () => {
    const error = (await client.send(Refuse, { n: 1 }).catch((e: unknown) => e)) as ServiceError;
    expect(error.payload).toMatchObject({ code: 'insufficient_balance', balance: { needed: 10, remaining: 3, max_affordable_limit: 3 } });
    const invalid = (await client.send(Refuse, { n: 1.5 }).catch((e: unknown) => e)) as ServiceError;
    expect(invalid.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'n' }] });
  });
});
