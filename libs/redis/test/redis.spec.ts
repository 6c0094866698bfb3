import { Inject, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import { InjectRedis, redisConnectionOptions, RedisModule, type Redis } from '../src';

describe('redisConnectionOptions', () => {
  it('reads host, port, credentials, database and TLS from the URL', () => {
    expect(redisConnectionOptions('rediss://user:p%40ss@cache.example:6380/4')).toEqual({
      host: 'cache.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 4,
      tls: {},
    });
    expect(redisConnectionOptions('redis://127.0.0.1')).toEqual({ host: '127.0.0.1', port: 6379 });
  });
});

describe('RedisModule', () => {
  let redis: PrivateRedis;
  beforeAll(async () => (redis = await startPrivateRedis()));
  afterAll(() => redis.stop());

  const SECOND = Symbol('SECOND');

  @Injectable()
  class UsesBoth {
    constructor(
      @InjectRedis() readonly data: Redis,
      @Inject(SECOND) readonly second: Redis,
    ) {}
  }

  it('provides named connections with their key prefix, and closes them with the app', async () => {
    const module = await Test.createTestingModule({
      imports: [
        RedisModule.register({ useFactory: () => ({ url: redis.url, name: 'data', keyPrefix: 'app:' }) }),
        RedisModule.register({ token: SECOND, useFactory: () => ({ url: redis.url, name: 'second' }) }),
      ],
      providers: [UsesBoth],
    }).compile();
    const app = await module.init();
    const { data, second } = app.get(UsesBoth);
    await data.set('k', 'v');
    expect(await second.get('app:k')).toBe('v');
    expect(await second.client('GETNAME')).toBe('second');
    await app.close();
    expect([data.status, second.status]).toEqual(['end', 'end']);
  });
});
