import { randomBase64url, randomHex } from '../src';

describe('random ids from the pooled CSPRNG', () => {
  it('have the asked length and alphabet', () => {
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomBase64url(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('never repeat across many refills of the pool', () => {
    // 16 bytes x 2,000 = 32 KB: the 4 KB pool is refilled about eight times on the way.
    const ids = Array.from({ length: 2_000 }, () => randomBase64url(16));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses more bytes than the pool holds instead of repeating them', () => {
    expect(() => randomHex(5_000)).toThrow(RangeError);
  });
});
