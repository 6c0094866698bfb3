import { ConfigError, loadConfig } from '@adintel/config';
import { appConfigSchema, DEFAULT_PLANS } from '../src/config';

describe('metering config', () => {
  it('defaults to the trial and Pro plans, port 3004 and the metering: prefix', () => {
    expect(loadConfig(appConfigSchema, {})).toMatchObject({
      PORT: 3004,
      PLANS: DEFAULT_PLANS,
      RESERVATION_TTL_SECONDS: 120,
      LEDGER_RETENTION_DAYS: 400,
      REDIS_KEY_PREFIX: 'metering:',
    });
  });

  it('reads plans from PLANS as JSON', () => {
    const plans = '{"trial":{"allowance":100,"period":"lifetime"},"team":{"allowance":250000,"period":"month"}}';
    expect(loadConfig(appConfigSchema, { PLANS: plans }).PLANS).toEqual({
      trial: { allowance: 100, period: 'lifetime' },
      team: { allowance: 250_000, period: 'month' },
    });
  });

  it.each([
    ['not JSON', '{trial:', 'must be JSON'],
    ['without the trial', '{"pro":{"allowance":1,"period":"month"}}', 'trial'],
    ['with a bad period', '{"trial":{"allowance":1,"period":"week"}}', 'PLANS'],
    ['with a negative allowance', '{"trial":{"allowance":-1,"period":"lifetime"}}', 'PLANS'],
  ])('refuses PLANS %s, naming the variable', (_, value, expected) => {
    let error: unknown;
    try {
      loadConfig(appConfigSchema, { PLANS: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PLANS');
    expect(problems).toContain(expected);
  });
});
