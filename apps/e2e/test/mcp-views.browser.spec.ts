import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type TextResourceContents } from '@modelcontextprotocol/client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { newAgentToken } from './agent';
import { STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';
import { mountView } from './view-host';

/** Screenshots land here (the test output); README images are copies of these. */
const SCREENSHOTS = join(WORKSPACE_ROOT, 'dist', 'test-output', 'mcp-views');

const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe('MCP Apps views in headless Chromium, fed real tool results from the running service', () => {
  let stack: Stack;
  let client: Client;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let requests: string[];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    stack = await startStack();
    const { token } = await newAgentToken(stack.baseUrl);
    // The host speaks 2026-07-28 (ext-apps 2.x runs on the v2 SDK client).
    client = new Client({ name: 'views-e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  }, STACK_START_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await stack?.stop();
  }, 60_000);

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 900, height: 720 } });
    page = await context.newPage();
    problems = [];
    requests = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
  });

  afterEach(async () => {
    await context?.close();
  });

  async function viewHtml(toolName: string): Promise<string> {
    const { tools } = await client.listTools();
    const uri = (tools.find((tool) => tool.name === toolName)?._meta?.['ui'] as { resourceUri?: string } | undefined)?.resourceUri;
    expect(uri).toMatch(/^ui:\/\//);
    const { contents } = await client.readResource({ uri: String(uri) });
    return (contents[0] as TextResourceContents).text;
  }

  async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    return result;
  }

  /** A screenshot of what the view shows (cropped to its content), into the test output. */
  async function screenshot(name: string) {
    const box = await page.frameLocator('#view').locator('main').boundingBox();
    const height = Math.ceil((box?.y ?? 0) + (box?.height ?? 0) + 12);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), clip: { x: 0, y: 0, width: 900, height: Math.min(720, Math.max(40, height)) } });
  }

  /** What every view must satisfy: no console errors, and not one request leaves the page. */
  function expectQuietAndOffline() {
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith('data:') && url !== 'about:blank' && url !== 'about:srcdoc')).toEqual([]);
  }

  /** Waits until no picture is pending in the view: each placeholder became a picture or went away. */
  async function picturesSettled() {
    await page.frameLocator('#view').locator('.thumb.pending').first().waitFor({ state: 'detached' });
  }

  /** Pictures that loaded in the view: <img> elements with a data: src the browser decoded. */
  async function loadedPictures(selector: string): Promise<{ src: string; width: number }[]> {
    const images = page.frameLocator('#view').locator(selector);
    await images.first().waitFor();
    await images.evaluateAll((nodes) => Promise.all(nodes.map((node) => (node as unknown as { decode(): Promise<void> }).decode())));
    return images.evaluateAll((nodes) =>
      nodes.map((node) => ({ src: String(node.getAttribute('src')).slice(0, 23), width: (node as unknown as { naturalWidth: number }).naturalWidth })),
    );
  }

  const used = async () => ((await call('get_usage', {})).structuredContent as { used: number }).used;

  /** The thumbnails a result names for its view: URIs only, no picture bytes in `_meta`. */
  function namedThumbnails(result: CallToolResult): { creative_id: string; uri: string }[] {
    const thumbnails = result._meta?.['thumbnails'] as { creative_id: string; uri: string }[];
    expect(thumbnails.length).toBeGreaterThan(0);
    for (const thumbnail of thumbnails) expect(thumbnail.uri).toBe(`${stack.baseUrl}/api/v1/creo/${encodeURIComponent(thumbnail.creative_id)}/media/0/thumbnail`);
    expect(JSON.stringify(result._meta)).not.toMatch(/base64|data:/);
    return thumbnails;
  }

  it('ad gallery: one card per ad with its fields and picture, a link per ad, and the next page through callServerTool', async () => {
    const args = { limit: 6, status_today: 'active' };
    const result = await call('search_ads', args);
    const page1 = result.structuredContent as { data: { title: string; landing_domain: string; landing_url: string; platform_name: string; creative_id: string }[]; pagination: { has_more: boolean } };
    expect(page1.data).toHaveLength(6);
    // The view's pictures are named in _meta by URI; neither _meta nor the text the model reads carries picture bytes.
    const thumbnails = namedThumbnails(result);
    expect(thumbnails.length).toBeLessThanOrEqual(new Set(page1.data.map((ad) => ad.creative_id)).size);
    const text = (result.content[0] as { text: string }).text;
    expect(text).not.toMatch(/data:image|base64/);
    expect(text.length).toBeLessThan(15_000);
    expect(result._meta?.['size']).toMatchObject({ characters: text.length });
    const usedBefore = await used();
    const { openedLinks, resourceReads } = await mountView(page, client, await viewHtml('search_ads'), args, result);

    const view = page.frameLocator('#view');
    const cards = view.locator('article.card');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(6);
    const first = cards.first();
    expect(await first.locator('h3').textContent()).toBe(page1.data[0]?.title || '(no title)');
    expect(await first.locator('.domain').textContent()).toBe(page1.data[0]?.landing_domain);
    expect(await first.locator('.badge').allTextContents()).toEqual(['active', page1.data[0]?.platform_name]);
    expect(await first.locator('.countries').textContent()).not.toBe('');
    expect(await first.locator('.seen').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} → \d{4}-\d{2}-\d{2}$/);
    expect(await view.locator('.summary').textContent()).toMatch(/^6 shown of [\d,]+\+? matching$/);
    // Every card of the first page is in view: its picture was read through the host, once per creative, free.
    await picturesSettled();
    const pictures = await loadedPictures('article.card img.thumb');
    expect(pictures.length).toBe(page1.data.filter((ad) => thumbnails.some((t) => t.creative_id === ad.creative_id)).length);
    for (const picture of pictures) expect(picture).toEqual({ src: 'data:image/webp;base64,', width: expect.any(Number) });
    expect(Math.min(...pictures.map((picture) => picture.width))).toBeGreaterThan(0);
    expect([...resourceReads].sort()).toEqual(thumbnails.map((t) => t.uri).sort());
    expect(await used()).toBe(usedBefore); // no thumbnail is charged
    await screenshot('ad-gallery');

    await first.locator('a.link').click();
    expect(openedLinks).toEqual([page1.data[0]?.landing_url]);

    expect(page1.pagination.has_more).toBe(true);
    const before = await used();
    await view.locator('button.more').click();
    await view.locator('article.card').nth(11).waitFor();
    expect(await cards.count()).toBe(12);
    expect(await view.locator('.summary').textContent()).toMatch(/^12 shown of/);
    const after = await used();
    expect(after - before).toBe(6); // the view's page was charged to this agent, like any call
    // Lazily: a picture is read only when its card comes into view. The cards below the frame's fold keep their
    // placeholders, unread, until the view scrolls to them.
    const pending = view.locator('.thumb.pending');
    const pendingInView = () => pending.evaluateAll((nodes) => nodes.filter((node) => node.getBoundingClientRect().top < (globalThis as unknown as { innerHeight: number }).innerHeight).length);
    for (let waited = 0; (await pendingInView()) > 0; waited += 100) {
      expect(waited).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await pending.count()).toBeGreaterThan(0);
    const readBeforeScroll = resourceReads.length;
    await cards.nth(11).scrollIntoViewIfNeeded();
    await picturesSettled();
    expect(resourceReads.length).toBeGreaterThan(readBeforeScroll);
    expect((await loadedPictures('article.card img.thumb')).length).toBeGreaterThan(pictures.length);
    expect(new Set(resourceReads).size).toBe(resourceReads.length); // each thumbnail read once
    expect(await used()).toBe(after); // and none charged
    expectQuietAndOffline();
  });

  it('ad gallery on a host without serverResources: the cards without pictures, nothing read', async () => {
    const args = { limit: 3 };
    const result = await call('search_ads', args);
    namedThumbnails(result);
    const { resourceReads } = await mountView(page, client, await viewHtml('search_ads'), args, result, { serverResources: false });
    const view = page.frameLocator('#view');
    await view.locator('article.card').nth(2).waitFor();
    expect(await view.locator('.thumb').count()).toBe(0);
    expect(resourceReads).toEqual([]);
    expectQuietAndOffline();
  });

  it('trend chart: one bar per row with label, share and change', async () => {
    const args = { dimension: 'geo', limit: 8 };
    const result = await call('get_trends', args);
    const rows = (result.structuredContent as { data: { label: string; change: { delta: number } }[] }).data;
    expect(rows.length).toBeGreaterThan(0);
    await mountView(page, client, await viewHtml('get_trends'), args, result);

    const view = page.frameLocator('#view');
    const bars = view.locator('li.row');
    await bars.first().waitFor();
    expect(await bars.count()).toBe(rows.length);
    expect(await view.locator('li.row .label').allTextContents()).toEqual(rows.map((row) => row.label));
    const widths = await view.locator('li.row .bar').evaluateAll((nodes) => nodes.map((node) => (node as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width));
    expect(widths[0]).toBeGreaterThan(0);
    expect([...widths].sort((a, b) => b - a)).toEqual(widths); // ranked: the bars never grow down the list
    const delta = rows[0]?.change.delta ?? 0;
    const firstChange = await bars.first().locator('.change').textContent();
    expect(firstChange).toMatch(new RegExp(`^${delta > 0 ? '\\+' : ''}${delta.toLocaleString('en-US')} \\(`));
    await screenshot('trend-chart');
    expectQuietAndOffline();
  });

  it('trend chart: the timeline as a line with a point per day', async () => {
    const args = { dimension: 'timeline', limit: 30 };
    const result = await call('get_trends', args);
    const rows = (result.structuredContent as { data: unknown[] }).data;
    expect(rows.length).toBeGreaterThan(1);
    await mountView(page, client, await viewHtml('get_trends'), args, result);

    const view = page.frameLocator('#view');
    await view.locator('svg.line-chart polyline.line').waitFor();
    expect(await view.locator('svg.line-chart circle.point').count()).toBe(rows.length);
    expect(await view.locator('figcaption .change').textContent()).toMatch(/^[+-]?[\d,]+ \((new|[+-]?\d+%)\)$/);
    await screenshot('trend-timeline');
    expectQuietAndOffline();
  });

  it('advertiser card: name, figures, countries and creatives of a real advertiser', async () => {
    const ads = (await call('search_ads', { limit: 20 })).structuredContent as { data: { advertiser_id: string; creative_format: string }[] };
    const args = { id: String(ads.data.find((ad) => ad.creative_format !== 'text')?.advertiser_id) };
    const result = await call('get_advertiser', args);
    const advertiser = result.structuredContent as { name: string; ads_total: number; countries: unknown[] };
    const usedBefore = await used();
    const { resourceReads } = await mountView(page, client, await viewHtml('get_advertiser'), args, result);

    const view = page.frameLocator('#view');
    await view.locator('article.advertiser h2').waitFor();
    expect(await view.locator('article.advertiser h2').textContent()).toBe(advertiser.name);
    expect(await view.locator('.stat strong').first().textContent()).toBe(advertiser.ads_total.toLocaleString('en-US'));
    expect(await view.locator('.countries li').count()).toBe(Math.min(12, advertiser.countries.length));
    const candidates = namedThumbnails(result);
    const pictures = await loadedPictures('.creatives img.thumb');
    // the first six candidates that read (every demo creative of the tests' store has its picture)
    expect(pictures.length).toBe(Math.min(6, candidates.length));
    expect(Math.min(...pictures.map((picture) => picture.width))).toBeGreaterThan(0);
    expect(resourceReads).toEqual(candidates.slice(0, 6).map((t) => t.uri));
    expect(await used()).toBe(usedBefore); // no thumbnail is charged
    await screenshot('advertiser-card');
    expectQuietAndOffline();
  });
});
