import { pingRedis, startPrivateRedis } from '../src/private-redis';

describe('startPrivateRedis', () => {
  it('starts a Redis of its own that answers, and stops it', async () => {
    const redis = await startPrivateRedis();
    try {
      expect(await pingRedis(redis.url)).toBe(true);
    } finally {
      await redis.stop();
    }
    expect(await pingRedis(redis.url)).toBe(false);
  });
});
