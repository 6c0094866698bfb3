import { Redis } from '@adintel/redis';
import { basic, CONTRACT_REGISTRATION, register, TEST_REDIS_URL } from '../e2e/support';
import { authServerFor } from './support';

/** Issue 23, low item: client secrets sat in clear in a Redis every app could read. They are kept as digests now. */
describe('client secrets at rest', () => {
  const server = authServerFor({});
  const redis = new Redis(TEST_REDIS_URL);
  afterAll(() => redis.disconnect());
  const clientKey = (id: string) => `${server().env.REDIS_KEY_PREFIX}Client:${id}`;
  const token = (authorization: string | undefined, form: Record<string, string> = {}) =>
    fetch(`${server().url}/oauth2/token`, {
      method: 'POST',
      headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', ...form }).toString(),
    });

  it('stores a digest, never the secret; the secret works by Basic and by form; the stored value does not', async () => {
    const { body } = await register(server().url, { ...CONTRACT_REGISTRATION, token_endpoint_auth_method: 'client_secret_post' });
    const [id, secret] = [String(body['client_id']), String(body['client_secret'])];
    const stored = JSON.parse((await redis.get(clientKey(id))) ?? '{}') as { client_secret?: string };
    expect(stored.client_secret).toMatch(/^sha256:[\w-]{43}$/);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect((await token(undefined, { client_id: id, client_secret: secret })).status).toBe(200);
    expect((await token(undefined, { client_id: id, client_secret: String(stored.client_secret) })).status).toBe(401);

    const { body: other } = await register(server().url, CONTRACT_REGISTRATION);
    expect((await token(basic(String(other['client_id']), String(other['client_secret'])))).status).toBe(200);
  });

  it('still accepts a client stored in clear before digests were kept', async () => {
    const { body } = await register(server().url, CONTRACT_REGISTRATION);
    const record = JSON.parse((await redis.get(clientKey(String(body['client_id'])))) ?? '{}') as Record<string, unknown>;
    await redis.set(clientKey('agt_legacy'), JSON.stringify({ ...record, client_id: 'agt_legacy', client_secret: 'a-legacy-secret-in-clear' }));
    expect((await token(basic('agt_legacy', 'a-legacy-secret-in-clear'))).status).toBe(200);
    expect((await token(basic('agt_legacy', 'a-wrong-secret'))).status).toBe(401);
  });
});
