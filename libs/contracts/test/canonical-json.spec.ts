import { canonicalJson, describeFieldErrors } from '../src/index';

describe('canonicalJson', () => {
  it('serialises the same value the same way whatever the key order', () => {
    const a = { b: 1, a: { d: [1, { z: true, y: null }], c: 'x' } };
    const b = { a: { c: 'x', d: [1, { y: null, z: true }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}');
  });

  it('agrees with JSON.stringify on what it leaves out or turns into null', () => {
    const value = { kept: 'yes', dropped: undefined, list: [undefined, 2, null] };
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(canonicalJson(['a', 1, null])).toBe(JSON.stringify(['a', 1, null]));
  });
});

describe('describeFieldErrors', () => {
  it('names every bad field in one line', () => {
    expect(describeFieldErrors([{ field: 'limit', message: 'too big' }, { field: 'country', message: 'unknown' }])).toBe(
      'limit: too big; country: unknown',
    );
  });
});
