import { connect } from 'node:net';
import { monitorRedis } from '../src/redis-monitor';
import { startPrivateRedis, type PrivateRedis } from '../src/private-redis';
import { waitUntil } from '../src/wait-until';

/** Sends one command as RESP and waits for its reply (this lib has no Redis client). */
function send(url: string, args: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const request = `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(request));
    socket.once('error', reject);
    socket.once('data', (reply) => {
      socket.destroy();
      resolve(reply.toString());
    });
  });
}

describe('monitorRedis', () => {
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('reports each command with its sender and its args as sent, escaped bytes included, until stopped', async () => {
    const monitor = await monitorRedis(redis.url);
    const value = 'say "hi"\\ \r\n\tand ünïcode ✓';
    await send(redis.url, ['SET', 'monitored:key', value]);
    await send(redis.url, ['EVAL', "return redis.call('GET', KEYS[1])", '1', 'monitored:key']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await monitor.stop();
    await send(redis.url, ['GET', 'after:stop']);

    const [set, evaluated, inScript, ...rest] = monitor.commands;
    expect(set).toEqual({ source: expect.stringMatching(/^127\.0\.0\.1:\d+$/), args: ['SET', 'monitored:key', value] });
    expect(evaluated?.args.slice(0, 1)).toEqual(['EVAL']);
    expect(inScript).toEqual({ source: 'lua', args: ['GET', 'monitored:key'] });
    expect(rest).toEqual([]);
  });

  it('starts while another client keeps Redis busy (commands then arrive in the same read as the OK)', async () => {
    const { hostname, port } = new URL(redis.url);
    const busy = connect({ host: hostname, port: Number(port) });
    busy.on('data', () => undefined);
    const flood = setInterval(() => busy.write('INFO server\r\n'.repeat(20)), 1);
    try {
      for (let i = 0; i < 20; i++) {
        const monitor = await monitorRedis(redis.url);
        // Until the flood shows up, not a fixed 5 ms: on a busy CI machine the 1 ms timer can miss that window.
        await waitUntil(() => monitor.commands.length > 0, 5_000, 1);
        await monitor.stop();
        expect(monitor.commands.length).toBeGreaterThan(0);
        expect(monitor.commands.every((command) => command.args[0] === 'INFO' && command.args[1] === 'server')).toBe(true);
      }
    } finally {
      clearInterval(flood);
      busy.destroy();
    }
  });

  it('rejects when it cannot reach Redis', async () => {
    await expect(monitorRedis('redis://127.0.0.1:1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
