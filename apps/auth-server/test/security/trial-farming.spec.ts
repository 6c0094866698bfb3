import { CONTRACT_REGISTRATION, register } from '../e2e/support';
import { authServerFor, counterValue } from './support';

/**
 * Issue 23, finding 1: every registration got its own 500-token trial and the only limit was per exact address,
 * so one IPv4 address farmed 10,000 tokens an hour and an IPv6 client rotated addresses inside its /64.
 * The auth server as a real process on Redis; client addresses come as X-Forwarded-For from loopback (trusted).
 */
describe('trials cannot be farmed', () => {
  describe('per network', () => {
    const server = authServerFor({ TRIALS_PER_NETWORK_PER_DAY: '3', REGISTRATION_LIMIT_PER_HOUR: '6' });
    const statusesFrom = async (addresses: string[], body: unknown = CONTRACT_REGISTRATION) => {
      const statuses: number[] = [];
      for (const address of addresses) statuses.push((await register(server().url, body, address)).res.status);
      return statuses;
    };

    it('stops agents from one IPv4 /24 at the daily trial limit, whatever the address inside it', async () => {
      const statuses = await statusesFrom(['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.250']);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      const refused = await register(server().url, CONTRACT_REGISTRATION, '198.51.100.77');
      expect(refused.body).toMatchObject({ error: 'rate_limited' });
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
      // The next /24 is another network.
      expect(await statusesFrom(['198.51.101.1'])).toEqual([201]);
    });

    it('stops agents rotating IPv6 addresses inside one /56', async () => {
      const statuses = await statusesFrom(['2001:db8:7:100::1', '2001:db8:7:101::2', '2001:db8:7:1ff:ffff::9', '2001:db8:7:142::1']);
      expect(statuses).toEqual([201, 201, 201, 429]);
      // IPv4-mapped addresses are their IPv4 network; another /56 is not affected.
      expect(await statusesFrom(['2001:db8:7:200::1', '::ffff:198.51.102.9'])).toEqual([201, 201]);
    });

    it('limits registrations of clients without a trial per network per hour, and they do not use up trials', async () => {
      const pkce = {
        client_name: 'public-app',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1:7777/cb'],
      };
      const net = (i: number) => `203.0.113.${i}`;
      expect(await statusesFrom([1, 2, 3, 4, 5].map(net), pkce)).toEqual([201, 201, 201, 201, 201]);
      // The network's sixth registration of the hour is an agent: the trial limit is not what stops the seventh.
      expect(await statusesFrom([net(6), net(7)])).toEqual([201, 429]);
    });

    it('counts a registration the provider refuses as nothing', async () => {
      // The code flow without redirect_uris passes our allow-list, not the provider's checks.
      const refused = { ...CONTRACT_REGISTRATION, grant_types: ['client_credentials', 'authorization_code'], response_types: ['code'] };
      const first = await register(server().url, refused, '192.0.2.1');
      expect(first.res.status).toBe(400);
      expect(await statusesFrom(['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'])).toEqual([201, 201, 201, 429]);
    });
  });

  describe('in total', () => {
    const server = authServerFor({ TRIALS_PER_HOUR: '3', LOG_LEVEL: 'info' });

    it('pauses new trials for everyone at the hourly ceiling: 429 with Retry-After and an alert metric, never a 5xx', async () => {
      const before = await counterValue(server().url, 'adintel_limit_refusals_total', 'limit="trials_global"');
      const statuses: number[] = [];
      for (let i = 1; i <= 5; i++) statuses.push((await register(server().url, CONTRACT_REGISTRATION, `100.${64 + i}.0.1`)).res.status);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      const refused = await register(server().url, CONTRACT_REGISTRATION, '100.99.0.1');
      expect(refused.res.status).toBe(429);
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.res.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      expect(await counterValue(server().url, 'adintel_limit_refusals_total', 'limit="trials_global"')).toBe(before + 3);
    });
  });

  // Idle clients and their trials: trial-lifetime.spec.ts (it needs metering too).
});
