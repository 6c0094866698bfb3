import { Redis } from '@adintel/redis';
import { startPrivateRedis } from './private-redis';

describe('startPrivateRedis', () => {
  it('starts a Redis of its own that answers, and stops it', async () => {
    const redis = await startPrivateRedis();
    const client = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    try {
      await client.connect();
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');
      expect(await client.dbsize()).toBe(1);
    } finally {
      client.disconnect();
      await redis.stop();
    }
    const after = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    await expect(after.connect()).rejects.toThrow();
    after.disconnect();
  });
});
