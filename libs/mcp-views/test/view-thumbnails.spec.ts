import { THUMBNAILS_META, thumbnailsOf } from '../src';

describe('thumbnailsOf: the pictures a tool result carries for a view', () => {
  const webp = 'data:image/webp;base64,UklGRhIAAABXRUJQ';

  it('reads them by creative id from the result\'s _meta', () => {
    const result = { _meta: { [THUMBNAILS_META]: [{ creative_id: 'cr_1', src: webp }, { creative_id: 'cr_2', src: 'data:image/png;base64,iVBORw0KGgo=' }] } };
    expect([...thumbnailsOf(result)]).toEqual([
      ['cr_1', webp],
      ['cr_2', 'data:image/png;base64,iVBORw0KGgo='],
    ]);
  });

  it('leaves out anything but a base64 data: URL of an allowed picture type', () => {
    const list = [
      { creative_id: 'svg', src: 'data:image/svg+xml;base64,PHN2Zz4=' },
      { creative_id: 'remote', src: 'https://example.com/a.webp' },
      { creative_id: 'quoted', src: `${webp}" onerror="x` },
      { creative_id: 7, src: webp },
      null,
      { creative_id: 'ok', src: webp },
    ];
    expect([...thumbnailsOf({ _meta: { [THUMBNAILS_META]: list } }).keys()]).toEqual(['ok']);
  });

  it('is empty for a result without them', () => {
    expect(thumbnailsOf(undefined).size).toBe(0);
    expect(thumbnailsOf({}).size).toBe(0);
    expect(thumbnailsOf({ _meta: { [THUMBNAILS_META]: 'nope' } }).size).toBe(0);
  });
});
