import type { Caller } from '../../src/auth/caller';
import { VerifiedTokenCache } from '../../src/auth/verified-token-cache';

const caller = (sub: string, expiresAt: number): Caller => ({ sub, scopes: ['mcp:read'], expiresAt });

describe('VerifiedTokenCache', () => {
  let now: number;
  const clock = () => now;
  beforeEach(() => (now = 1_000_000_000_000));

  it('answers a remembered token with its own caller, and an unknown token with nothing', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 10, maxAgeMs: 600_000 }, clock);
    cache.remember('token-a', caller('a', now / 1000 + 3600));
    cache.remember('token-b', caller('b', now / 1000 + 3600));
    expect(cache.get('token-a')?.sub).toBe('a');
    expect(cache.get('token-b')?.sub).toBe('b');
    expect(cache.get('token-c')).toBeUndefined();
  });

  it('never answers a token at or past its exp', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 10, maxAgeMs: 600_000 }, clock);
    cache.remember('token', caller('a', now / 1000 + 60));
    now += 59_999;
    expect(cache.get('token')?.sub).toBe('a');
    now += 1;
    expect(cache.get('token')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not remember a token that has already expired', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 10, maxAgeMs: 600_000 }, clock);
    cache.remember('token', caller('a', now / 1000));
    expect(cache.size).toBe(0);
  });

  it('forgets a token after maxAgeMs even when its exp is later', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 10, maxAgeMs: 1_000 }, clock);
    cache.remember('token', caller('a', now / 1000 + 3600));
    now += 1_000;
    expect(cache.get('token')).toBeUndefined();
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 2, maxAgeMs: 600_000 }, clock);
    const exp = now / 1000 + 3600;
    cache.remember('token-1', caller('1', exp));
    cache.remember('token-2', caller('2', exp));
    cache.get('token-1');
    cache.remember('token-3', caller('3', exp));
    expect(cache.size).toBe(2);
    expect(cache.get('token-2')).toBeUndefined();
    expect(cache.get('token-1')?.sub).toBe('1');
    expect(cache.get('token-3')?.sub).toBe('3');
  });

  it('remembers nothing with maxEntries 0', () => {
    const cache = new VerifiedTokenCache({ maxEntries: 0, maxAgeMs: 600_000 }, clock);
    cache.remember('token', caller('a', now / 1000 + 3600));
    expect(cache.get('token')).toBeUndefined();
  });
});
