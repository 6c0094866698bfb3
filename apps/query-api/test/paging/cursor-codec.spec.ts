import { ServiceError } from '@adintel/contracts';
import { CURSOR_TTL_MS, CursorCodec } from '../../src/paging/cursor-codec';

describe('CursorCodec', () => {
  let now = 1_000_000;
  const codec = new CursorCodec('s'.repeat(40), () => now);
  const binding = { filter: { country: 'US', platforms: ['facebook'] }, sort: 'date', order: 'desc' };
  const key = { value: '2026-01-02', id: 'ad_9' };

  const rejection = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(ServiceError);
      return (error as ServiceError).payload;
    }
    throw new Error('expected a rejection');
  };

  it('round-trips the position for the same query, whatever the key order', () => {
    const cursor = codec.encode('ads', binding, 'v1', key);
    expect(codec.decode('ads', { order: 'desc', sort: 'date', filter: { platforms: ['facebook'], country: 'US' } }, 'v1', cursor)).toEqual(key);
  });

  it('refuses a cursor of another query, another list, or older data, naming the cursor', () => {
    const cursor = codec.encode('ads', binding, 'v1', key);
    for (const attempt of [
      () => codec.decode('ads', { ...binding, sort: 'impressions' }, 'v1', cursor),
      () => codec.decode('webmasters', binding, 'v1', cursor),
      () => codec.decode('ads', binding, 'v2', cursor),
    ]) {
      expect(rejection(attempt)).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'cursor' }] });
    }
  });

  it('refuses forged and malformed cursors', () => {
    const cursor = codec.encode('ads', binding, 'v1', key);
    const [, signature] = cursor.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ k: ['2030-01-01', 'ad_1'], t: now })).toString('base64url');
    for (const bad of [`${forgedBody}.${signature}`, 'garbage', `${cursor}.x`, '.']) {
      expect(rejection(() => codec.decode('ads', binding, 'v1', bad))).toMatchObject({ code: 'invalid_argument' });
    }
    expect(rejection(() => new CursorCodec('t'.repeat(40), () => now).decode('ads', binding, 'v1', cursor)).code).toBe('invalid_argument');
  });

  it('expires cursors after the TTL', () => {
    const cursor = codec.encode('ads', binding, 'v1', key);
    now += CURSOR_TTL_MS + 1;
    expect(rejection(() => codec.decode('ads', binding, 'v1', cursor)).message).toMatch(/expired/);
  });
});
