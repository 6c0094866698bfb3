import { etagListed, rangeOf } from '../../src/media/media-range';
import { mediaUrl, targetOfUrl } from '../../src/media/media-target';

describe('the Range header of a media request (range-parser, against the stored size)', () => {
  it('reads one range of each form, and several as the whole file', () => {
    expect(rangeOf(undefined, 100)).toEqual({ kind: 'whole' });
    expect(rangeOf('bytes=0-99', 100)).toEqual({ kind: 'range', start: 0, end: 99 });
    expect(rangeOf('Bytes = 5-', 100)).toEqual({ kind: 'range', start: 5, end: 99 });
    expect(rangeOf('bytes=-50', 100)).toEqual({ kind: 'range', start: 50, end: 99 });
    expect(rangeOf('bytes=0-1, 4-5', 100)).toEqual({ kind: 'whole' });
    // Ranges that touch merge into one (range-parser's combine).
    expect(rangeOf('bytes=0-1,2-3', 100)).toEqual({ kind: 'range', start: 0, end: 3 });
  });

  it('refuses what it cannot read, naming why (a 416)', () => {
    for (const header of ['bytes=', 'bytes=-', 'items=0-1', 'bytes=5-1', 'bytes=abc', 'bytes=1-2,x', 'bytes=9999999999999999-', '0-1']) {
      expect([header, rangeOf(header, 100).kind]).toEqual([header, 'unsatisfiable']);
    }
  });

  it('resolves a range against the size; past the end, or an empty suffix, is nothing (416)', () => {
    expect(rangeOf('bytes=10-1000', 100)).toEqual({ kind: 'range', start: 10, end: 99 });
    expect(rangeOf('bytes=100-', 100)).toMatchObject({ kind: 'unsatisfiable' });
    expect(rangeOf('bytes=-500', 100)).toEqual({ kind: 'range', start: 0, end: 99 });
    expect(rangeOf('bytes=-0', 100)).toMatchObject({ kind: 'unsatisfiable' });
    expect(rangeOf('bytes=0-', 0)).toMatchObject({ kind: 'unsatisfiable' });
  });

  it('matches If-None-Match by weak comparison, in a list or as *', () => {
    expect(etagListed('"abc.webp"', 'abc.webp')).toBe(true);
    expect(etagListed('"x", W/"abc.webp"', 'abc.webp')).toBe(true);
    expect(etagListed('*', 'abc.webp')).toBe(true);
    expect(etagListed('"abc"', 'abc.webp')).toBe(false);
    expect(etagListed(undefined, 'abc.webp')).toBe(false);
  });
});

describe('media URLs as MCP resource URIs', () => {
  const base = 'https://ads.example';

  it('round-trips the URL of a file and of a thumbnail, ids percent-encoded', () => {
    for (const target of [
      { creativeId: 'cr_1', index: 0, variant: 'file' as const },
      { creativeId: 'a/b c', index: 3, variant: 'thumbnail' as const },
    ]) {
      expect(targetOfUrl(base, mediaUrl(base, target))).toEqual({ ok: true, target });
    }
  });

  it('names the bad field, says not found past the last index, and leaves other URIs alone', () => {
    expect(targetOfUrl(base, `${base}/api/v1/creo/cr_1/media/x`)).toMatchObject({ ok: false, notFound: false, errors: [{ field: 'n' }] });
    expect(targetOfUrl(base, `${base}/api/v1/creo/${'x'.repeat(129)}/media/0`)).toMatchObject({ ok: false, errors: [{ field: 'id' }] });
    expect(targetOfUrl(base, `${base}/api/v1/creo/%E0%A4%A/media/0`)).toMatchObject({ ok: false, errors: [{ field: 'id' }] });
    expect(targetOfUrl(base, `${base}/api/v1/creo/cr_1/media/50`)).toEqual({ ok: false, notFound: true, errors: [] });
    expect(targetOfUrl(base, 'ui://adintel/ad-gallery')).toBeUndefined();
    expect(targetOfUrl(base, `https://elsewhere.example/api/v1/creo/cr_1/media/0`)).toBeUndefined();
    expect(targetOfUrl(base, `${base}/api/v1/creo/cr_1`)).toBeUndefined();
  });
});
