import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '@adintel/tool-catalogue';
import { newAgentToken } from './agent';
import { LARGE_SEEDED_ADS, STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';

/**
 * Six analyst questions, each asked through the real MCP SDK client the way an efficient agent would (the fewest
 * calls, small limits, `fields`, the overview, trends' windows and evidence), against the built stack on 20,000 demo
 * ads. Each question records its calls, the tokens charged (the receipts in `_meta`) and the characters of tool
 * output a model would read (the text content); the figures go to docs/agents.md. A question that needs more than
 * 6 calls, 30 tokens or 20,000 characters fails.
 */
const LIMITS = { calls: 6, tokens: 30, characters: 20_000 };
const ADS = LARGE_SEEDED_ADS;

interface Figures {
  calls: number;
  tokens: number;
  characters: number;
}

type Json = Record<string, unknown>;

describe('analyst questions through the MCP client', () => {
  let stack: Stack;
  let client: Client;
  const figures = new Map<string, Figures>();

  beforeAll(async () => {
    // The budget checks below read every list at limit=100: more than a 500-token trial holds.
    stack = await startStack({ ads: ADS, trialAllowance: 10_000 });
    const { token } = await newAgentToken(stack.baseUrl);
    client = new Client({ name: 'analyst', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
  }, STACK_START_TIMEOUT_MS);
  afterAll(async () => {
    await client?.close();
    await stack?.stop();
    const lines = [...figures].map(([q, f]) => `| ${q} | ${f.calls} | ${f.tokens} | ${f.characters.toLocaleString('en-US')} |`);
    process.stdout.write(`analyst figures (${ADS} demo ads):\n| question | calls | tokens | characters |\n|---|---|---|---|\n${lines.join('\n')}\n`);
  });

  /** A question's session: every call is counted, and its structured result returned. */
  function session(question: string) {
    const f: Figures = { calls: 0, tokens: 0, characters: 0 };
    figures.set(question, f);
    return {
      figures: f,
      async call(name: string, args: Json): Promise<Json> {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        f.calls++;
        f.characters += result.content.reduce((n, block) => n + (block.type === 'text' ? block.text.length : 0), 0);
        const charged = result._meta?.['tokens_charged'];
        f.tokens += typeof charged === 'number' ? charged : 0;
        if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(result.content)}`);
        return result.structuredContent as Json;
      },
    };
  }

  const withinLimits = (f: Figures) => {
    expect(f.calls).toBeLessThanOrEqual(LIMITS.calls);
    expect(f.tokens).toBeLessThanOrEqual(LIMITS.tokens);
    expect(f.characters).toBeLessThanOrEqual(LIMITS.characters);
  };
  const rowsOf = (result: Json) => result['data'] as Json[];

  describe('the context budget', () => {
    const call = async (args: Json) => (await client.callTool({ name: 'search_ads', arguments: args })) as CallToolResult;
    const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

    it('keeps a 100-ad page under 60,000 characters of text, a default page under 15,000, id and title of 100 ads under 8,000', async () => {
      const sizes: Record<string, number> = {};
      for (const [name, args, bound] of [
        ['limit=100', { limit: 100 }, 60_000],
        ['default page', {}, 15_000],
        ['limit=100, fields=id,title', { limit: 100, fields: ['id', 'title'] }, 8_000],
      ] as const) {
        const result = await call(args);
        const text = textOf(result);
        sizes[name] = text.length;
        expect((result.structuredContent as { data: unknown[] }).data.length).toBe(name === 'default page' ? 20 : 100);
        expect([name, text.length]).toEqual([name, expect.any(Number)]);
        expect(text.length).toBeLessThan(bound);
        // The size rides in _meta beside the receipt.
        expect(result._meta?.['size']).toEqual({ characters: text.length, estimated_tokens: Math.ceil(text.length / 3) });
        sizes[`${name} (JSON)`] = JSON.stringify(result.structuredContent).length;
      }
      process.stdout.write(`search_ads text sizes: ${JSON.stringify(sizes)}\n`);
    });

    it('keeps every tool’s text under 60,000 characters at limit=100', async () => {
      const sizes: Record<string, number> = {};
      const cases: [string, Json][] = [
        ['search_ads', { limit: 100 }],
        ['search_advertisers', { limit: 100 }],
        ['search_webmasters', { limit: 100 }],
        ['list_webmaster_advertisers', { id: 'wm_00001', limit: 100 }],
        ['search_creatives', { limit: 100 }],
        ['search_domains', { limit: 100 }],
        ['search_apps', { limit: 100 }],
        ['list_usage_events', { limit: 100 }],
        ['get_catalog', {}],
        ...(['geo', 'advertisers/cards', 'webmasters', 'apps', 'timeline', 'scaling-creatives'] as const).map(
          (dimension): [string, Json] => [`get_trends ${dimension}`, { dimension, limit: 100 }],
        ),
        ...(['country', 'landing_domain', 'advertiser', 'overview'] as const).map((field): [string, Json] => [`get_ads_breakdown ${field}`, { field, limit: 100 }]),
      ];
      for (const [label, args] of cases) {
        const result = (await client.callTool({ name: label.split(' ')[0] as string, arguments: args })) as CallToolResult;
        expect([label, result.isError ? textOf(result) : 'ok']).toEqual([label, 'ok']);
        sizes[label] = textOf(result).length;
        expect([label, sizes[label]]).toEqual([label, expect.any(Number)]);
        expect(sizes[label]).toBeLessThan(60_000);
      }
      process.stdout.write(`text sizes at limit=100: ${JSON.stringify(sizes)}\n`);
    });

    it('refuses a bad field name with a 400 naming it and the allowed values, on both surfaces', async () => {
      const mcp = await call({ fields: ['title', 'clicks'] });
      expect(mcp.isError).toBe(true);
      expect(mcp._meta?.['problem']).toMatchObject({ status: 400, errors: [{ field: 'fields.1', allowed: expect.arrayContaining(['id', 'title', 'destination_type']) }] });
      const { token } = await newAgentToken(stack.baseUrl);
      const rest = await fetch(`${stack.baseUrl}/api/v1/ads?fields=title,clicks`, { headers: { authorization: `Bearer ${token}` } });
      expect(rest.status).toBe(400);
      expect(await rest.json()).toMatchObject({ errors: [{ field: 'fields.1', allowed: expect.arrayContaining(['id', 'title']) }] });
      // get_catalog lists the same names, from the same catalogue.
      const catalog = (await client.callTool({ name: 'get_catalog', arguments: {} })) as CallToolResult;
      const tools = (catalog.structuredContent as { tools: { name: string; fields?: string[] }[] }).tools;
      for (const tool of TOOLS) expect([tool.name, tools.find((t) => t.name === tool.name)?.fields]).toEqual([tool.name, tool.selection?.fields]);
    });
  });

  it('1. the 5 advertisers with the most gambling ads in Brazil in the last 30 days, and each one’s longest-running ad', async () => {
    const s = session('1. top gambling advertisers in BR, 30 days, longest-running ad each');
    // advertisers/cards ranks advertisers by ads active in the window (default: the last 30 days of data).
    const cards = await s.call('get_trends', { dimension: 'advertisers/cards', country: 'BR', ai_category: 'gambling_and_betting', limit: 5 });
    const rows = rowsOf(cards);
    expect(rows.length).toBe(5);
    for (const row of rows) {
      // The row's evidence is the search_ads arguments for its ads: sorted by days_active, the first is the longest-running.
      const evidence = (row['evidence'] as { arguments: Json }).arguments;
      const page = await s.call('search_ads', { ...evidence, sort_by: 'days_active', limit: 1, fields: ['title', 'days_active', 'landing_url'] });
      const [ad] = rowsOf(page);
      expect(ad).toEqual({ id: expect.any(String), title: expect.any(String), days_active: expect.any(Number), landing_url: expect.any(String) });
    }
    withinLimits(s.figures);
  });

  it('2. where finance ads in the US send people: destination types and top landing domains', async () => {
    const s = session('2. where US finance ads send people');
    const filters = { country: 'US', creative_categories: ['finance_and_banking'] };
    const destinations = await s.call('get_ads_breakdown', { field: 'destination_type', ...filters, limit: 6 });
    const domains = await s.call('get_ads_breakdown', { field: 'landing_domain', ...filters, limit: 10 });
    expect(rowsOf(destinations).length).toBeGreaterThan(1);
    expect(rowsOf(domains).length).toBe(10);
    withinLimits(s.figures);
  });

  it('3. what is new this week in dating in Germany: new advertisers, creatives that are scaling', async () => {
    const s = session('3. new this week in dating, DE');
    const filters = { country: 'DE', ai_category: 'dating_and_relationships' };
    // The last 7 days of data, one row per day: new ads per day, and the dates of "this week".
    const days = await s.call('get_trends', { dimension: 'timeline', ...filters, limit: 7 });
    const week = { date_from: String(rowsOf(days)[0]?.['key']), date_to: (days['window'] as Json)['date_to'] };
    // Advertisers of the week against the week before: previous_ads 0 = new this week.
    const advertisers = await s.call('get_trends', { dimension: 'advertisers/cards', ...filters, ...week, limit: 5 });
    const scaling = await s.call('get_trends', { dimension: 'scaling-creatives', ...filters, ...week, limit: 5 });
    expect(rowsOf(days).length).toBe(7);
    expect(rowsOf(advertisers).length).toBeGreaterThan(0);
    expect(rowsOf(scaling).length).toBeGreaterThan(0);
    withinLimits(s.figures);
  });

  it('4. everything one webmaster runs: countries, verticals, advertisers, top domains', async () => {
    const s = session('4. everything one webmaster runs');
    const [top] = rowsOf(await s.call('search_webmasters', { limit: 1, fields: ['name'] }));
    const id = String(top?.['id']);
    // One overview: countries, categories, advertisers and domains of its ads, 3 rows per section.
    const overview = await s.call('get_ads_breakdown', { field: 'overview', webmaster_id: id, limit: 24 });
    const sections = overview['sections'] as { field: string; data: Json[] }[];
    for (const field of ['country', 'category', 'advertiser', 'landing_domain']) {
      expect(sections.find((x) => x.field === field)?.data.length).toBeGreaterThan(0);
    }
    withinLimits(s.figures);
  });

  it('5. the apps promoted most in India, and by whom', async () => {
    const s = session('5. apps promoted most in IN, and by whom');
    const apps = rowsOf(await s.call('get_trends', { dimension: 'apps', country: 'IN', limit: 5 }));
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) {
      const by = await s.call('get_ads_breakdown', { field: 'advertiser', app_id: app['key'], country: 'IN', limit: 2 });
      expect(rowsOf(by).length).toBeGreaterThan(0);
    }
    withinLimits(s.figures);
  });

  it('6. how many e-commerce ads are active today on TikTok against Facebook', async () => {
    const s = session('6. active e-commerce ads, TikTok vs Facebook');
    const byPlatform = await s.call('get_ads_breakdown', {
      field: 'platform',
      status_today: 'active',
      creative_categories: ['ecommerce_and_retail'],
      limit: 2,
    });
    expect(rowsOf(byPlatform).map((b) => b['key']).sort()).toEqual(['facebook', 'tiktok']);
    withinLimits(s.figures);
  });
});
