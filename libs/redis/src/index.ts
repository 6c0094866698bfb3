export { Redis } from 'ioredis';
export type { RedisOptions } from 'ioredis';
export * from './connection-options';
export * from './create-redis';
export * from './redis.module';
