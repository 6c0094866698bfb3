import { Logger } from '@nestjs/common';
import type { CustomStrategy, RedisContext } from '@nestjs/microservices';
import { runWithRequestId, requestIdFrom } from '@adintel/observability';
import { RECONNECT, redisConnectionOptions } from './redis-connection';
import { channelNamespace, NamespacedServerRedis } from './channels';

export const REQUEST_ID_METADATA = 'request_id';

/**
 * The transport a service listens on. Every handler runs inside the caller's request id, taken from the
 * packet metadata, so its logs and onward messages carry it; each handled message logs one line
 * (pattern, duration) with that id, the service-side twin of an HTTP access log.
 */
export function createTransportServer(redisUrl: string): CustomStrategy {
  const logger = new Logger('Transport');
  const started = new WeakMap<object, number>();
  const server = new NamespacedServerRedis({ ...redisConnectionOptions(redisUrl), ...RECONNECT }, channelNamespace(redisUrl));
  server.setOnProcessingStartHook((_transport, context, done) => {
    const metadata = (context as RedisContext).getMetadata?.();
    return runWithRequestId(requestIdFrom(metadata?.[REQUEST_ID_METADATA]), () => {
      started.set(context as object, performance.now());
      return done();
    });
  });
  server.setOnProcessingEndHook((_transport, context) => {
    const startedAt = started.get(context as object);
    const durationMs = startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 10) / 10;
    logger.log({ msg: 'message handled', pattern: (context as RedisContext).getChannel(), duration_ms: durationMs });
  });
  return { strategy: server };
}
