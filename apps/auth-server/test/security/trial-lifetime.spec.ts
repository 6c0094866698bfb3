import { randomUUID } from 'node:crypto';
import { MeteringMessages } from '@adintel/contracts';
import { Redis } from '@adintel/redis';
import { startApp, waitUntil, type AppProcess } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';
import {
  authServerEnv,
  basic,
  CONTRACT_REGISTRATION,
  CookieJar,
  createOwner,
  removeTestState,
  form,
  hiddenCsrf,
  register,
  startAuthServer,
  TEST_REDIS_URL,
} from '../e2e/support';

jest.setTimeout(120_000);

/** Short lives: an unused client 3 s, a used one 8 s, a trial 12 s (the margin: 4 s). */
const UNUSED_S = 3;
const IDLE_S = 8;
const TRIAL_S = 12;
/**
 * This suite's own transport database: no other suite's metering answers this auth server, and this metering
 * handles no other suite's messages (they use db 2).
 */
const TRANSPORT_URL = 'redis://127.0.0.1:6379/11';

/**
 * Issue 23, finding 1: clients and their trials never expired. Clients expire now (unused, idle), and metering's
 * trial (the agent's record and pool) expires with its client and never before it: a trial gone while its client
 * lives would hand the same agent a fresh 500 tokens. The auth server and metering as real processes on Redis.
 */
describe('trial clients expire together with their trials, never after them', () => {
  let env: Awaited<ReturnType<typeof authServerEnv>>;
  let auth: AppProcess | undefined;
  let metering: AppProcess | undefined;
  let meteringClient: ServiceClient | undefined;
  let redis: Redis;
  let meteringPrefix: string;

  beforeAll(async () => {
    env = await authServerEnv({
      CLIENT_UNUSED_TTL_SECONDS: String(UNUSED_S),
      CLIENT_IDLE_TTL_SECONDS: String(IDLE_S),
      TRANSPORT_URL,
      TRANSPORT_TIMEOUT_MS: '2000',
    });
    meteringPrefix = `${env.REDIS_KEY_PREFIX}metering:`;
    metering = await startApp({
      name: 'metering',
      env: { REDIS_URL: TEST_REDIS_URL, TRANSPORT_URL, REDIS_KEY_PREFIX: meteringPrefix, TRIAL_TTL_SECONDS: String(TRIAL_S), LOG_LEVEL: 'warn' },
    });
    auth = await startAuthServer(env);
    meteringClient = new ServiceClient({ service: 'metering', url: TRANSPORT_URL, timeoutMs: 5_000 });
    redis = new Redis(TEST_REDIS_URL);
  }, 90_000);

  afterAll(async () => {
    redis?.disconnect();
    await meteringClient?.close();
    await auth?.stop();
    await metering?.stop();
    if (env) await removeTestState(env);
    const transport = new Redis(TRANSPORT_URL);
    try {
      const streams = await transport.keys('transport:*'); // this suite's own database
      if (streams.length) await transport.del(...streams);
    } finally {
      transport.disconnect();
    }
  });

  const base = () => env.PUBLIC_BASE_URL;
  const started = <T>(thing: T | undefined): T => {
    if (!thing) throw new Error('the suite did not start');
    return thing;
  };
  const clientKey = (id: string) => `${env.REDIS_KEY_PREFIX}Client:${id}`;
  const recordKey = (id: string) => `${meteringPrefix}agent:${id}`;
  const poolKey = (id: string) => `${meteringPrefix}pool:agent:life:${id}`;
  /** When a key ends, in Redis ms; -1 kept for good, -2 gone. */
  const endOf = (key: string) => redis.pexpiretime(key);
  const token = (id: string, secret: string) =>
    fetch(`${base()}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basic(id, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read' }).toString(),
    });
  /** A paid call's reserve and settle, as the gateway sends them. */
  const paidCall = async (agentId: string) => {
    const requestId = `paid-${randomUUID()}`;
    await started(meteringClient).send(MeteringMessages.reserve, { request_id: requestId, caller_id: agentId, tool: 'search_ads', amount: 20 });
    await started(meteringClient).send(MeteringMessages.settle, { request_id: requestId, caller_id: agentId, charged: 12 });
  };
  const newAgent = async () => {
    const { body } = await register(base(), CONTRACT_REGISTRATION);
    return { id: String(body['client_id']), secret: String(body['client_secret']) };
  };
  /** The token's effect on the client's life comes after the token's answer (it waits for metering). */
  const untilClientEndsAfter = (id: string, ms: number) => waitUntil(async () => (await endOf(clientKey(id))) > ms, 5_000, 50);

  it("a trial outlives its client after registration, a token and a paid call; once the client is gone, so is the trial, within the margin", async () => {
    const agent = await newAgent();
    const [registeredAt] = await redis.time();
    await waitUntil(async () => (await redis.exists(recordKey(agent.id))) === 1, 5_000, 50); // agentRegistered is an event
    const clientEnd = await endOf(clientKey(agent.id));
    expect(clientEnd - Number(registeredAt) * 1000).toBeLessThanOrEqual(UNUSED_S * 1000 + 1000);
    expect(await endOf(recordKey(agent.id))).toBeGreaterThanOrEqual(clientEnd);

    expect((await token(agent.id, agent.secret)).status).toBe(200);
    await untilClientEndsAfter(agent.id, clientEnd);
    const usedEnd = await endOf(clientKey(agent.id));
    expect(usedEnd - Number(registeredAt) * 1000).toBeGreaterThan((IDLE_S - 2) * 1000);
    expect(await endOf(recordKey(agent.id))).toBeGreaterThanOrEqual(usedEnd);

    await paidCall(agent.id);
    const clientTtl = await redis.ttl(clientKey(agent.id));
    expect(clientTtl).toBeGreaterThan(0);
    expect(await redis.ttl(poolKey(agent.id))).toBeGreaterThanOrEqual(clientTtl);
    expect(await endOf(poolKey(agent.id))).toBeGreaterThanOrEqual(await endOf(clientKey(agent.id)));
    expect(await endOf(recordKey(agent.id))).toBeGreaterThanOrEqual(await endOf(clientKey(agent.id)));

    // a second token moves all three; the client still ends first
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = await endOf(clientKey(agent.id));
    expect((await token(agent.id, agent.secret)).status).toBe(200);
    await untilClientEndsAfter(agent.id, before);
    const [clientNow, poolNow, recordNow] = await Promise.all([endOf(clientKey(agent.id)), endOf(poolKey(agent.id)), endOf(recordKey(agent.id))]);
    expect(poolNow).toBeGreaterThanOrEqual(clientNow);
    expect(recordNow).toBeGreaterThanOrEqual(clientNow);

    // idle: the client goes first, the trial within the margin after it
    await waitUntil(async () => (await redis.exists(clientKey(agent.id))) === 0, (IDLE_S + 2) * 1000, 100);
    const [clientGoneAt] = await redis.time();
    expect(await redis.exists(poolKey(agent.id), recordKey(agent.id))).toBe(2);
    await waitUntil(async () => (await redis.exists(poolKey(agent.id), recordKey(agent.id))) === 0, (TRIAL_S - IDLE_S + 2) * 1000, 100);
    const [trialGoneAt] = await redis.time();
    expect(Number(trialGoneAt) - Number(clientGoneAt)).toBeLessThanOrEqual(TRIAL_S - IDLE_S + 1);
    const refused = await token(agent.id, agent.secret);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('deletes a client that never took a token, and keeps one that did for the idle time', async () => {
    const unused = await newAgent();
    const used = await newAgent();
    expect((await token(used.id, used.secret)).status).toBe(200);
    await waitUntil(async () => (await redis.ttl(clientKey(used.id))) > UNUSED_S, 5_000, 50);
    expect(await redis.ttl(clientKey(used.id))).toBeLessThanOrEqual(IDLE_S);
    await new Promise((resolve) => setTimeout(resolve, (UNUSED_S + 0.5) * 1000));
    const gone = await token(unused.id, unused.secret);
    expect(gone.status).toBe(401);
    expect(await gone.json()).toMatchObject({ error: 'invalid_client' });
    expect((await token(used.id, used.secret)).status).toBe(200);
  });

  it("keeps an attached agent's client and trial for good, through tokens, and lets both age again once detached", async () => {
    const email = `trial-owner-${Date.now()}@example.com`;
    const password = 'trial owner password';
    expect(await createOwner(env, email, password)).toMatchObject({ created: true, metering: 'updated' });
    const agent = await newAgent();
    expect((await token(agent.id, agent.secret)).status).toBe(200);
    await paidCall(agent.id);

    const jar = new CookieJar();
    const login = await (await jar.fetch(`${base()}/account/login`)).text();
    expect((await jar.fetch(`${base()}/account/login`, form({ email, password, csrf: hiddenCsrf(login) }))).status).toBe(303);
    const csrf = async () => hiddenCsrf(await (await jar.fetch(`${base()}/account`)).text());
    const attached = await jar.fetch(`${base()}/account/agents`, form({ client_id: agent.id, client_secret: agent.secret, csrf: await csrf() }));
    expect(attached.headers.get('location')).toBe('/account?notice=attached');
    expect(await Promise.all([endOf(clientKey(agent.id)), endOf(poolKey(agent.id)), endOf(recordKey(agent.id))])).toEqual([-1, -1, -1]);

    // a token and a paid call (from the owner's pool) change nothing; the agent outlives every idle time
    expect((await token(agent.id, agent.secret)).status).toBe(200);
    await paidCall(agent.id);
    await new Promise((resolve) => setTimeout(resolve, (IDLE_S + 1) * 1000));
    expect(await Promise.all([endOf(clientKey(agent.id)), endOf(poolKey(agent.id)), endOf(recordKey(agent.id))])).toEqual([-1, -1, -1]);

    const detached = await jar.fetch(`${base()}/account/agents/${encodeURIComponent(agent.id)}/detach`, form({ csrf: await csrf() }));
    expect(detached.status).toBe(303);
    const [clientEnd, poolEnd, recordEnd] = await Promise.all([endOf(clientKey(agent.id)), endOf(poolKey(agent.id)), endOf(recordKey(agent.id))]);
    expect(clientEnd).toBeGreaterThan(0);
    expect(poolEnd).toBeGreaterThanOrEqual(clientEnd);
    expect(recordEnd).toBeGreaterThanOrEqual(clientEnd);
    // its trial is the one it had: 12 of 500 spent before it was attached
    expect(await started(meteringClient).send(MeteringMessages.getUsage, { caller_id: agent.id })).toMatchObject({ pool: 'agent', used: 12 });
  });

  it('issues the token when metering cannot be asked, warns with the request id, and leaves the client no longer than its trial', async () => {
    const agent = await newAgent();
    expect((await token(agent.id, agent.secret)).status).toBe(200);
    await waitUntil(async () => (await redis.ttl(clientKey(agent.id))) > UNUSED_S, 5_000, 50);
    await paidCall(agent.id);
    const clientEnd = await endOf(clientKey(agent.id));
    await started(metering).stop();
    metering = undefined;

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const issued = await token(agent.id, agent.secret);
    expect(issued.status).toBe(200);
    const requestId = issued.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    await waitUntil(() => started(auth).output.some((line) => line.includes(agent.id) && line.includes('metering did not extend its trial')), 10_000, 100);
    const warning = JSON.parse(started(auth).output.find((line) => line.includes(agent.id) && line.includes('metering did not extend its trial')) ?? '{}') as Record<string, unknown>;
    expect(warning).toMatchObject({ level: 'warn', request_id: requestId, client_id: agent.id });
    expect(await endOf(clientKey(agent.id))).toBe(clientEnd);
    expect(await endOf(poolKey(agent.id))).toBeGreaterThanOrEqual(clientEnd);
  });
});
