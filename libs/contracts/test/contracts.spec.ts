import { z } from 'zod';
import { ERROR_STATUS, fieldErrorsFrom, MeteringMessages, QueryMessages, searchAdsArgs, ServiceErrorPayload } from '../src/index';

describe('the message registry', () => {
  it.each([
    ['query', QueryMessages],
    ['metering', MeteringMessages],
  ] as const)('names every %s message under its service, each pattern used once', (name, messages) => {
    for (const message of Object.values(messages)) expect(message.pattern.startsWith(`${name}.`)).toBe(true);
    const all = [...Object.values(QueryMessages), ...Object.values(MeteringMessages)].map((m) => m.pattern);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('field errors', () => {
  it('names each unknown key with the allowed ones, and each bad value with what is allowed', () => {
    const schema = searchAdsArgs();
    const result = schema.safeParse({ contry: 'US', sort_order: 'up' });
    expect(result.success).toBe(false);
    const errors = fieldErrorsFrom((result as z.ZodSafeParseError<unknown>).error, Object.keys(schema.shape));
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'contry', message: 'is not a parameter of this tool', allowed: expect.arrayContaining(['country', 'limit']) },
        { field: 'sort_order', message: expect.any(String), allowed: ['asc', 'desc'] },
      ]),
    );
  });

  it('maps every error code to one HTTP status the payload schema accepts', () => {
    for (const code of Object.keys(ERROR_STATUS)) {
      expect(ServiceErrorPayload.safeParse({ code, message: 'x' }).success).toBe(true);
    }
    expect(ServiceErrorPayload.safeParse({ code: 'teapot', message: 'x' }).success).toBe(false);
    expect(ERROR_STATUS).toMatchObject({ invalid_argument: 400, insufficient_balance: 402, rate_limited: 429, timeout: 504 });
  });
});
