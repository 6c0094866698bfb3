import type { Redis } from '@adintel/redis';

/**
 * Holds this connection's socket writes until the current tick's callbacks and promise continuations have run,
 * then sends them in one `writev`: a batch's replies and acks, and the read queued behind them, reach Redis as
 * one packet (one wake-up) instead of one each. Node's http corks a response the same way. It costs one
 * `process.nextTick`: no timer, no extra turn of the event loop.
 */
export function coalesceWrites(redis: Redis): void {
  const socket = redis.stream;
  if (!socket || socket.writableCorked > 0 || redis.status !== 'ready') return;
  socket.cork();
  process.nextTick(uncork, socket);
}

function uncork(socket: Redis['stream']): void {
  socket.uncork();
}
