import type { CustomStrategy, RedisContext } from '@nestjs/microservices';
import { runWithRequestId, requestIdFrom } from '@adintel/observability';
import { RECONNECT, redisConnectionOptions } from './redis-connection';
import { channelNamespace, NamespacedServerRedis } from './channels';

export const REQUEST_ID_METADATA = 'request_id';

/**
 * The transport a service listens on. Every handler runs inside the caller's request id,
 * taken from the packet metadata, so its logs and onward messages carry it.
 */
export function createTransportServer(redisUrl: string): CustomStrategy {
  const server = new NamespacedServerRedis({ ...redisConnectionOptions(redisUrl), ...RECONNECT }, channelNamespace(redisUrl));
  server.setOnProcessingStartHook((_transport, context, done) => {
    const metadata = (context as RedisContext).getMetadata?.();
    runWithRequestId(requestIdFrom(metadata?.[REQUEST_ID_METADATA]), () => void done());
  });
  return { strategy: server };
}
