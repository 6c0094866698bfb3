import { pictureOf, THUMBNAILS_META, thumbnailsOf } from '../src';

describe('thumbnailsOf: the thumbnail URIs a tool result names for a view', () => {
  const uri = (id: string) => `https://ads.example/api/v1/creo/${id}/media/0/thumbnail`;

  it('reads them by creative id, in order, from the result\'s _meta', () => {
    const result = { _meta: { [THUMBNAILS_META]: [{ creative_id: 'cr_1', uri: uri('cr_1') }, { creative_id: 'cr%2F2', uri: uri('cr%2F2') }] } };
    expect([...thumbnailsOf(result)]).toEqual([
      ['cr_1', uri('cr_1')],
      ['cr%2F2', uri('cr%2F2')],
    ]);
  });

  it('leaves out anything but an http(s) thumbnail URI', () => {
    const list = [
      { creative_id: 'file', uri: 'https://ads.example/api/v1/creo/x/media/0' },
      { creative_id: 'data', uri: 'data:image/webp;base64,UklGRhIAAABXRUJQ' },
      { creative_id: 'script', uri: 'javascript:alert(1)//media/0/thumbnail' },
      { creative_id: 'quoted', uri: `${uri('q')}" onerror="x` },
      { creative_id: 7, uri: uri('7') },
      null,
      { creative_id: 'ok', uri: uri('ok') },
    ];
    expect([...thumbnailsOf({ _meta: { [THUMBNAILS_META]: list } }).keys()]).toEqual(['ok']);
  });

  it('is empty for a result without them', () => {
    expect(thumbnailsOf(undefined).size).toBe(0);
    expect(thumbnailsOf({}).size).toBe(0);
    expect(thumbnailsOf({ _meta: { [THUMBNAILS_META]: 'nope' } }).size).toBe(0);
  });
});

describe('pictureOf: what a resources/read of a thumbnail gives the view to show', () => {
  const uri = 'https://ads.example/api/v1/creo/cr_1/media/0/thumbnail';
  const read = (content: Record<string, unknown>) => ({ contents: [{ uri, ...content }] });

  it('is a data: URL of the blob, typed as the server said', () => {
    expect(pictureOf(read({ mimeType: 'image/webp', blob: 'UklGRhIAAABXRUJQ' }), uri)).toBe('data:image/webp;base64,UklGRhIAAABXRUJQ');
    expect(pictureOf(read({ mimeType: 'image/png', blob: 'iVBORw0KGgo=' }), uri)).toBe('data:image/png;base64,iVBORw0KGgo=');
  });

  it('is undefined for anything else: SVG, another type, text, a bad blob, another URI, nothing', () => {
    expect(pictureOf(read({ mimeType: 'image/svg+xml', blob: 'PHN2Zz4=' }), uri)).toBeUndefined();
    expect(pictureOf(read({ mimeType: 'text/html', blob: 'PGh0bWw+' }), uri)).toBeUndefined();
    expect(pictureOf(read({ mimeType: 'image/webp', text: 'UklGRhIAAABXRUJQ' }), uri)).toBeUndefined();
    expect(pictureOf(read({ mimeType: 'image/webp', blob: 'UklGR" onerror="x' }), uri)).toBeUndefined();
    expect(pictureOf(read({ blob: 'UklGRhIAAABXRUJQ' }), uri)).toBeUndefined();
    expect(pictureOf({ contents: [{ uri: `${uri}x`, mimeType: 'image/webp', blob: 'UklGRhIAAABXRUJQ' }] }, uri)).toBeUndefined();
    expect(pictureOf({ contents: [null] }, uri)).toBeUndefined();
    expect(pictureOf(undefined, uri)).toBeUndefined();
  });
});
