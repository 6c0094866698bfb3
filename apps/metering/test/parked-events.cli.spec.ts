import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MeteringMessages } from '@adintel/contracts';
import { Redis } from '@adintel/redis';
import { startApp, startPrivateRedis, waitUntil, WORKSPACE_ROOT, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { ServiceClient, StreamKeys } from '@adintel/transport';

jest.setTimeout(90_000);

/**
 * An event metering cannot store (its data Redis is full and refuses writes) is retried, then parked; once the
 * store has room again an operator lists it and re-sends it with the built CLI (dist/apps/metering/cli.js), and
 * metering processes it. The broker and metering's data live in two Redis servers, so only the store is full.
 */
describe('metering cli: parked events', () => {
  let broker: PrivateRedis;
  let data: PrivateRedis;
  let app: AppProcess;
  let client: ServiceClient;
  let brokerProbe: Redis;
  let dataProbe: Redis;
  const env = () => ({ REDIS_URL: data.url, TRANSPORT_URL: broker.url, TRANSPORT_TIMEOUT_MS: '1500', LOG_LEVEL: 'error' });
  const cli = (...args: string[]) => {
    const run = spawnSync(process.execPath, [join(WORKSPACE_ROOT, 'dist/apps/metering/cli.js'), ...args], {
      env: { ...process.env, ...env() },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };

  beforeAll(async () => {
    [broker, data] = [await startPrivateRedis(), await startPrivateRedis()];
    app = await startApp({ name: 'metering', env: env(), readyPath: '/readyz' });
    client = new ServiceClient({ service: 'metering', url: broker.url, timeoutMs: 5_000 });
    brokerProbe = new Redis(broker.url);
    dataProbe = new Redis(data.url);
  });

  afterAll(async () => {
    await client?.close();
    await app?.stop();
    brokerProbe?.disconnect();
    dataProbe?.disconnect();
    await broker?.stop();
    await data?.stop();
  });

  it('parks an event metering could not store, and runs it again when an operator re-sends it', async () => {
    const agent = `agent-${randomUUID()}`;
    await dataProbe.config('SET', 'maxmemory-policy', 'noeviction');
    await dataProbe.config('SET', 'maxmemory', '1'); // every write is refused (OOM) from now on
    await client.emit(MeteringMessages.agentRegistered, { agent_id: agent, client_name: 'parked bot' });
    await waitUntil(async () => (await brokerProbe.xlen(StreamKeys.deadEvents)) === 1, 30_000, 100);

    const listed = cli('parked-events');
    expect(listed).toMatchObject({ code: 0, stderr: expect.stringContaining('1 parked event') });
    const event = JSON.parse(listed.stdout.trim()) as { id: string };
    expect(event).toMatchObject({ group: 'metering', pattern: MeteringMessages.agentRegistered.pattern, data: { agent_id: agent }, deliveries: 6 });
    expect(cli('parked-events', '--group', 'query')).toMatchObject({ code: 0, stdout: '', stderr: expect.stringContaining('0 parked events of query') });

    expect(await dataProbe.keys(`*agent:${agent}`)).toEqual([]);
    await dataProbe.config('SET', 'maxmemory', '0');
    expect(cli('resend-parked', event.id)).toMatchObject({ code: 0, stderr: expect.stringContaining('re-sent 1 of 1') });
    await waitUntil(async () => (await dataProbe.keys(`*agent:${agent}`)).length === 1, 20_000, 100);
    const [key] = await dataProbe.keys(`*agent:${agent}`);
    expect(await dataProbe.hget(key as string, 'client_name')).toBe('parked bot');
    expect(cli('parked-events')).toMatchObject({ code: 0, stdout: '' });

    // Re-sending it again finds nothing: it ran once.
    expect(cli('resend-parked', event.id)).toMatchObject({ code: 1, stderr: expect.stringContaining(`${event.id}: not parked`) });
  });

  it('refuses a command it does not know, or ids that are missing or malformed, naming what was wrong', () => {
    expect(cli('resend-parked')).toMatchObject({ code: 2, stderr: expect.stringContaining('needs the ids parked-events lists, or --all') });
    expect(cli('resend-parked', '--all', '1-0')).toMatchObject({ code: 2, stderr: expect.stringContaining('(not both)') });
    expect(cli('resend-parked', 'yesterday')).toMatchObject({ code: 2, stderr: expect.stringContaining('"yesterday" is not an entry id') });
    expect(cli('replay')).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "replay"') });
    expect(cli('parked-events', '--since', 'today')).toMatchObject({ code: 2, stderr: expect.stringContaining("'--since'") });
    expect(cli('resend-parked', '--all')).toMatchObject({ code: 0, stderr: expect.stringContaining('re-sent 0 of 0') });
  });
});
