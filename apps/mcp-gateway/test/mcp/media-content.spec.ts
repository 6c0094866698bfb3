import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QueryMessages, ServiceError, type Creative, type Media } from '@adintel/contracts';
import { ADVERTISER_CANDIDATES, THUMBNAILS_META, VIEW_THUMBNAIL_LIMITS } from '@adintel/mcp-views';
import { RECORD_IMAGE_LIMITS } from '../../src/mcp/media-content';
import { fakeMetering, fakeQuery, sampleAd } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';
import { MediaDir } from '../support/media-dir';
import { TestIssuer } from '../support/test-issuer';

/**
 * How pictures ride with tool results when their reads fail or succeed. query-api is the harness's stand-in here,
 * naming files of a real media folder the gateway reads (its real media reads are exercised end to end in
 * apps/e2e/test/mcp-client-lines.e2e.spec.ts); this suite makes single files go missing, which the real service does
 * not do on demand.
 */
const stored = (creativeId: string, index: number): Media => ({
  type: 'image',
  url: `${TEST_BASE_URL}/api/v1/creo/${creativeId}/media/${index}`,
  width: 360,
  height: 360,
  duration_seconds: null,
  bytes: 9_000 + index,
  thumbnail_url: `${TEST_BASE_URL}/api/v1/creo/${creativeId}/media/${index}/thumbnail`,
});

function creative(id: string, media: Media[]): Creative {
  return {
    id,
    title: 'A creative',
    creative_format: media.length > 1 ? 'carousel' : media.length ? 'image' : 'text',
    ads_count: 1,
    advertisers_count: 1,
    platforms: ['facebook'],
    first_seen_date: '2026-01-01',
    last_seen_date: '2026-01-04',
    media,
    countries: ['US'],
    advertiser_ids: ['adv-1'],
    sample_ad_ids: ['ad-1'],
  };
}

describe('pictures in MCP tool results (media-content.ts)', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  let client: Client;
  const query = fakeQuery(40);
  const metering = fakeMetering();
  let picture: string;
  /** A thumbnail of noise, large enough that a few of them pass the byte bound. */
  let noise: Buffer;
  /** Reads of these `creative/index/variant` fail as query-api's would when a file is missing from the store. */
  const failing = new Set<string>();
  /** Every media read the gateway asked query-api for (`creative/index/variant`). */
  const reads: string[] = [];
  const media = new MediaDir();

  beforeAll(async () => {
    picture = (await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2f6fde' } }).webp().toBuffer()).toString('base64');
    noise = await sharp(randomBytes(256 * 256 * 3), { raw: { width: 256, height: 256, channels: 3 } }).webp({ lossless: true }).toBuffer();
    const creatives = new Map([
      ['cr-six', creative('cr-six', [0, 1, 2, 3, 4, 5].map((n) => stored('cr-six', n)))],
      ['cr-half', creative('cr-half', [stored('cr-half', 0), stored('cr-half', 1), { ...stored('cr-half', 2), url: 'https://cdn.example/x.jpg', bytes: null, thumbnail_url: null }])],
      ['cr-text', creative('cr-text', [])],
      ['cr-big', creative('cr-big', [0, 1, 2, 3].map((n) => stored('cr-big', n)))],
    ]);
    query
      .on(QueryMessages.getCreative, ({ id }) => {
        const found = creatives.get(String(id));
        if (!found) throw ServiceError.notFound('creative', String(id));
        return found;
      })
      .on(QueryMessages.searchAds, (args) => ({
        // 40 ads over 30 creatives, the last ten sharing one: more than a page's picture bound; ad 3 is a text ad
        data: Array.from({ length: Math.min(Number(args['limit']), 40) }, (_, i) => ({
          ...sampleAd(i + 1),
          creative_id: `cr-${Math.min(i, 29)}`,
          ...(i === 2 && { creative_format: 'text' as const, media_count: 0 }),
        })),
        pagination: { next_cursor: null, has_more: false, total: 40, total_estimated: false, watermark: null },
      }))
      .on(QueryMessages.getAdvertiser, ({ id }) => ({
        id: String(id),
        name: 'Advertiser',
        platforms: ['facebook'],
        ads_total: 40,
        active_ads: 40,
        platform_accounts: [],
        creatives: 30,
        webmasters: 0,
        countries: [],
        categories: [],
        landing_domains: [],
        first_seen_date: '2026-01-01',
        last_seen_date: '2026-01-04',
      }))
      .on(QueryMessages.locateMedia, ({ creative_id, index, variant }) => {
        reads.push(`${creative_id}/${index}/${variant}`);
        // query-api names the file; a failing one is missing from the media store the gateway reads.
        if (failing.has(`${creative_id}/${index}/${variant}`)) return { key: MediaDir.MISSING };
        return { key: creative_id === 'cr-big' ? noiseKey : pictureKey };
      });
    const pictureKey = media.put(Buffer.from(picture, 'base64'), 'webp');
    const noiseKey = media.put(noise, 'webp');
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query, metering: metering.service, env: { MEDIA_DIR: media.path } });
    const token = await issuer.token({ sub: 'media-agent' });
    client = new Client({ name: 'media-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await issuer?.close();
    media.close();
  });
  beforeEach(() => {
    failing.clear();
    reads.length = 0;
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const blocks = (result: CallToolResult) => result.content.map((block) => block.type);

  it('bounds the image blocks and links every stored file', async () => {
    const result = await call('get_creative', { id: 'cr-six' });
    expect(blocks(result)).toEqual(['text', ...Array(RECORD_IMAGE_LIMITS.count).fill('image'), ...Array(6).fill('resource_link')]);
    expect(result.content[1]).toEqual({ type: 'image', data: picture, mimeType: 'image/webp' });
    expect(result.content[RECORD_IMAGE_LIMITS.count + 1]).toEqual({
      type: 'resource_link',
      uri: `${TEST_BASE_URL}/api/v1/creo/cr-six/media/0`,
      name: 'cr-six/media/0',
      title: 'Creative cr-six, image 1 (360x360)',
      description: expect.stringContaining('10 tokens'),
      mimeType: 'image/webp',
      size: 9_000,
    });
    expect(result._meta).toMatchObject({ tokens_charged: 1 });
    expect(result.structuredContent).toEqual(creative('cr-six', [0, 1, 2, 3, 4, 5].map((n) => stored('cr-six', n))));
  });

  it('keeps the image blocks within the byte bound', async () => {
    const fits = Math.floor(RECORD_IMAGE_LIMITS.bytes / noise.length);
    expect(fits).toBeGreaterThan(0);
    expect(fits).toBeLessThan(4); // else this test would not reach the bound
    const result = await call('get_creative', { id: 'cr-big' });
    expect(blocks(result)).toEqual(['text', ...Array(fits).fill('image'), ...Array(4).fill('resource_link')]);
  });

  it('leaves out a picture whose read fails, and still answers and charges the call', async () => {
    failing.add('cr-half/1/thumbnail').add('cr-half/1/file');
    const before = metering.balanceOf('media-agent');
    const warnings = jest.spyOn(Logger.prototype, 'warn'); // observes the gateway's log calls; they still run
    const result = await call('get_creative', { id: 'cr-half' });
    const logged = warnings.mock.calls.map(([entry]) => entry as Record<string, unknown>);
    warnings.mockRestore();
    expect(result.isError).toBeFalsy();
    // each failed read is logged with the call's request id
    expect(logged.map(({ request_id, creative_id, index, variant, code }) => ({ request_id, creative_id, index, variant, code })).sort((a, b) => String(a.variant).localeCompare(String(b.variant)))).toEqual([
      { request_id: result._meta?.['request_id'], creative_id: 'cr-half', index: 1, variant: 'file', code: 'unavailable' },
      { request_id: result._meta?.['request_id'], creative_id: 'cr-half', index: 1, variant: 'thumbnail', code: 'unavailable' },
    ]);
    // entry 1's thumbnail failed, entry 2 has no stored file: one picture, two links (the failed one without its type)
    expect(blocks(result)).toEqual(['text', 'image', 'resource_link', 'resource_link']);
    expect(result.content.slice(2).map((link) => [(link as { uri: string }).uri, (link as { mimeType?: string }).mimeType])).toEqual([
      [`${TEST_BASE_URL}/api/v1/creo/cr-half/media/0`, 'image/webp'],
      [`${TEST_BASE_URL}/api/v1/creo/cr-half/media/1`, undefined],
    ]);
    expect(result._meta).toMatchObject({ tokens_charged: 1, tokens_remaining: before - 1 });
  });

  it('answers the text alone for a creative without pictures', async () => {
    const result = await call('get_creative', { id: 'cr-text' });
    expect(blocks(result)).toEqual(['text']);
    expect(result._meta).toMatchObject({ tokens_charged: 1 });
  });

  const thumbnailUri = (creativeId: string) => `${TEST_BASE_URL}/api/v1/creo/${creativeId}/media/0/thumbnail`;

  it('names a search_ads page\'s pictures in _meta by URI, one per distinct creative within the bound, reading no bytes', async () => {
    const result = await call('search_ads', { limit: 40 });
    expect(blocks(result)).toEqual(['text']);
    // the first 24 distinct creatives with a picture (cr-2 is a text ad), in row order: URIs, no bytes
    const expected = Array.from({ length: VIEW_THUMBNAIL_LIMITS.count + 1 }, (_, i) => `cr-${i}`).filter((id) => id !== 'cr-2');
    expect(result._meta?.[THUMBNAILS_META]).toEqual(expected.map((id) => ({ creative_id: id, uri: thumbnailUri(id) })));
    expect(reads).toEqual([]);
    expect(JSON.stringify(result._meta)).not.toMatch(/base64|data:/);
    expect((result.content[0] as { text: string }).text).not.toContain('thumbnail');
    expect(result._meta).toMatchObject({ tokens_charged: 40 });
  });

  it('names no pictures for rows without creative_id (fields)', async () => {
    const result = await call('search_ads', { limit: 5, fields: ['title'] });
    expect(result.isError).toBeFalsy();
    expect(result._meta).not.toHaveProperty(THUMBNAILS_META);
  });

  it('names the candidates for the advertiser card from its most popular ads, reading no bytes', async () => {
    const result = await call('get_advertiser', { id: 'adv-9' });
    expect(result.isError).toBeFalsy();
    const expected = Array.from({ length: ADVERTISER_CANDIDATES + 1 }, (_, i) => `cr-${i}`).filter((id) => id !== 'cr-2');
    expect(result._meta?.[THUMBNAILS_META]).toEqual(expected.map((id) => ({ creative_id: id, uri: thumbnailUri(id) })));
    expect(reads).toEqual([]);
  });
});
