import * as v2 from '@modelcontextprotocol/client';
import sharp from 'sharp';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider as LegacyCredentials } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { TOOLS } from '@adintel/tool-catalogue';
import { CONTRACT_REGISTRATION, getJson, newAgentToken, register } from './agent';
import { STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';
import { argumentsFor, findSeedIds, type SeedIds } from './tool-arguments';

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: unknown[];
  _meta?: Record<string, unknown>;
}

/** What this suite needs of an MCP client, whichever SDK line it comes from. */
interface AgentSession {
  readonly protocolVersion: string | undefined;
  readonly serverVersion: string | undefined;
  listTools(): Promise<{ name: string; outputSchema?: Record<string, unknown>; _meta?: Record<string, unknown> }[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  listResources(): Promise<{ uri: string; mimeType?: string }[]>;
  readResource(uri: string): Promise<{ uri: string; mimeType?: string; text?: string }[]>;
  close(): Promise<void>;
}

/** The calls this suite makes, which both lines' `Client` classes have under the same names. */
interface SdkClient {
  getServerVersion(): { version: string } | undefined;
  listTools(): Promise<{ tools: Awaited<ReturnType<AgentSession['listTools']>> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string; mimeType?: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  close(): Promise<void>;
}

function sessionOf(client: SdkClient, protocolVersion: string | undefined): AgentSession {
  return {
    protocolVersion,
    serverVersion: client.getServerVersion()?.version,
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    listResources: async () => (await client.listResources()).resources,
    readResource: async (uri) => (await client.readResource({ uri })).contents as { uri: string; mimeType?: string; text?: string }[],
    close: () => client.close(),
  };
}

interface ClientLine {
  readonly name: string;
  readonly revision: string;
  connect(mcpUrl: URL, credentials: { client_id: string; client_secret: string }): Promise<AgentSession>;
}

/** The SDK's current major (`@modelcontextprotocol/client` 2.x), pinned to the 2026-07-28 revision. */
const CURRENT: ClientLine = {
  name: '@modelcontextprotocol/client 2.x',
  revision: '2026-07-28',
  async connect(mcpUrl, credentials) {
    // The stack's issuer is its public origin (AUTH_ISSUER defaults to PUBLIC_BASE_URL): credentials go nowhere else.
    const authProvider = new v2.ClientCredentialsProvider({
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      scope: 'mcp:read',
      expectedIssuer: mcpUrl.origin,
    });
    const client = new v2.Client({ name: 'e2e-v2-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new v2.StreamableHTTPClientTransport(mcpUrl, { authProvider, onInsufficientScope: 'throw' }));
    return sessionOf(client, client.getNegotiatedProtocolVersion());
  },
};

/** `@modelcontextprotocol/sdk` 1.x, which speaks 2025-11-25 (initialize) and nothing newer. */
const LEGACY: ClientLine = {
  name: '@modelcontextprotocol/sdk 1.x',
  revision: '2025-11-25',
  async connect(mcpUrl, credentials) {
    const authProvider = new LegacyCredentials({
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      scope: 'mcp:read',
      expectedIssuer: mcpUrl.origin,
    });
    const client = new LegacyClient({ name: 'e2e-v1-agent', version: '1.0.0' });
    const transport = new LegacyTransport(mcpUrl, { authProvider });
    await client.connect(transport);
    return sessionOf(client, transport.protocolVersion);
  },
};

const problemOf = (result: ToolResult) => result._meta?.['problem'] as Record<string, unknown> | undefined;

/** The bounds docs/media.md documents for get_ad/get_creative pictures (apps/mcp-gateway/src/mcp/media-content.ts). */
const IMAGE_BLOCKS = 4;
const IMAGE_BYTES = 256 * 1024;

interface MediaEntry {
  type: string;
  url: string;
  bytes: number | null;
  thumbnail_url: string | null;
}

/** Creatives of the seeded store: the carousel with the most cards (more than the image bound when the page has one), and a text-only one. */
async function findMediaCreatives(base: string, token: string): Promise<{ carouselId: string; textId: string }> {
  const ads = (await getJson(base, token, '/api/v1/ads?limit=100')).body['data'] as { creative_id: string; creative_format: string; media_count: number }[];
  const widest = ads.filter((ad) => ad.creative_format === 'carousel').reduce((best, ad) => (ad.media_count > best.media_count ? ad : best));
  const text = ads.find((ad) => ad.creative_format === 'text');
  return { carouselId: widest.creative_id, textId: String(text?.creative_id) };
}

describe('both official MCP client lines against the running service, each with OAuth client credentials', () => {
  let stack: Stack;
  let ids: SeedIds;
  let creatives: { carouselId: string; textId: string };
  /** What each line saw, in the same shape, so the two can be compared at the end. */
  const seen: Record<string, unknown> = {};

  beforeAll(async () => {
    stack = await startStack();
    const { token } = await newAgentToken(stack.baseUrl);
    ids = await findSeedIds(stack.baseUrl, token);
    creatives = await findMediaCreatives(stack.baseUrl, token);
  }, STACK_START_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  describe.each([CURRENT, LEGACY])('$name speaking $revision', (line) => {
    let session: AgentSession;

    beforeAll(async () => {
      const credentials = await register(stack.baseUrl, { ...CONTRACT_REGISTRATION, client_name: `e2e ${line.name}` });
      session = await line.connect(new URL(`${stack.baseUrl}/mcp`), credentials);
    }, 60_000);
    afterAll(async () => {
      await session?.close();
    });

    it('negotiates its revision with the service', () => {
      expect({ protocolVersion: session.protocolVersion, serverVersion: session.serverVersion }).toEqual({ protocolVersion: line.revision, serverVersion: '1.0.0' });
    });

    it('lists the 20 tools and calls each one (the client checks structuredContent against its outputSchema), with a receipt', async () => {
      const tools = await session.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      for (const tool of tools) expect([tool.name, tool.outputSchema?.['type']]).toEqual([tool.name, 'object']);
      const receipts: Record<string, unknown> = {};
      for (const tool of TOOLS) {
        const result = await session.callTool(tool.name, argumentsFor(tool, ids));
        expect([tool.name, result.isError ?? false]).toEqual([tool.name, false]);
        expect(result._meta).toMatchObject({ tokens_charged: expect.any(Number), request_id: expect.any(String) });
        receipts[tool.name] = result._meta?.['tokens_charged'];
      }
      seen[`${line.name} charges`] = receipts;
    });

    it('reads the MCP Apps view each tool names', async () => {
      const tools = await session.listTools();
      const named = [...new Set(tools.flatMap((tool) => ((tool._meta?.['ui'] as { resourceUri?: string } | undefined)?.resourceUri ? [(tool._meta?.['ui'] as { resourceUri: string }).resourceUri] : [])))];
      const listed = await session.listResources();
      expect(listed.map((resource) => resource.uri).sort()).toEqual(named.sort());
      for (const uri of named) {
        const [content] = await session.readResource(uri);
        expect({ uri: content?.uri, mimeType: content?.mimeType }).toEqual({ uri, mimeType: 'text/html;profile=mcp-app' });
        expect(content?.text).toMatch(/^<!doctype html>/);
      }
      seen[`${line.name} views`] = named.sort();
    });

    it('gets a creative\'s thumbnails as image blocks that decode, within the bound, and a resource_link per stored file, for 1 token', async () => {
      const result = await session.callTool('get_creative', { id: creatives.carouselId });
      expect(result.isError ?? false).toBe(false);
      expect(result._meta).toMatchObject({ tokens_charged: 1 });
      const stored = ((result.structuredContent?.['media'] ?? []) as MediaEntry[]).filter((entry) => entry.thumbnail_url !== null);
      expect(stored.length).toBeGreaterThan(1);
      const [text, ...rest] = result.content as { type: string; text?: string; data?: string; mimeType?: string; uri?: string; size?: number }[];
      expect(text?.type).toBe('text');
      expect(JSON.parse(String(text?.text))).toMatchObject({ id: creatives.carouselId }); // the text is the record, no pictures in it

      const images = rest.filter((block) => block.type === 'image');
      expect(images).toHaveLength(Math.min(IMAGE_BLOCKS, stored.length));
      let bytes = 0;
      for (const image of images) {
        const data = Buffer.from(String(image.data), 'base64');
        bytes += data.length;
        const decoded = await sharp(data).metadata();
        expect({ mimeType: image.mimeType, format: decoded.format }).toEqual({ mimeType: 'image/webp', format: 'webp' });
        expect(Math.max(decoded.width ?? 0, decoded.height ?? 0)).toBeLessThanOrEqual(256);
        expect(Math.min(decoded.width ?? 0, decoded.height ?? 0)).toBeGreaterThan(0);
      }
      expect(bytes).toBeLessThanOrEqual(IMAGE_BYTES);

      const links = rest.filter((block) => block.type === 'resource_link');
      expect(links.map((link) => ({ uri: link.uri, size: link.size }))).toEqual(stored.map((entry) => ({ uri: entry.url, size: entry.bytes })));
      for (const link of links) expect(link.mimeType).toMatch(/^image\/(webp|png|jpeg|gif)$/);
      expect(rest).toHaveLength(images.length + links.length);

      const plain = await session.callTool('get_creative', { id: creatives.textId });
      expect(plain._meta).toMatchObject({ tokens_charged: 1 });
      expect(plain.content.map((block) => (block as { type: string }).type)).toEqual(['text']);
      seen[`${line.name} media`] = { images: images.length, links: links.length, plain: plain.content.length };
    });

    it('gets a bad argument as an isError problem naming the field, charged nothing', async () => {
      const result = await session.callTool('search_ads', { limit: 1000 });
      expect(result.isError).toBe(true);
      expect(problemOf(result)).toMatchObject({ status: 400, code: 'invalid_argument', errors: [expect.objectContaining({ field: 'limit' })] });
      expect(result._meta).toMatchObject({ tokens_charged: 0 });
      seen[`${line.name} bad argument`] = { status: problemOf(result)?.['status'], fields: (problemOf(result)?.['errors'] as { field: string }[]).map((e) => e.field) };
    });

    it('runs the trial down to a 402 problem that says what it can still afford', async () => {
      let result: ToolResult | undefined;
      for (let round = 0; round < 10; round++) {
        result = await session.callTool('search_ads', { limit: 100 });
        if (result.isError) break;
      }
      expect(result?.isError).toBe(true);
      const problem = problemOf(result as ToolResult);
      expect(problem).toMatchObject({ status: 402, needed: 100, max_affordable_limit: expect.any(Number) });
      expect(problem?.['max_affordable_limit']).toBe(problem?.['remaining']);
      seen[`${line.name} 402`] = { status: problem?.['status'], code: problem?.['code'], needed: problem?.['needed'] };
    });
  });

  it('gave both lines the same answers', () => {
    const of = (line: ClientLine) => Object.fromEntries(Object.entries(seen).flatMap(([key, value]) => (key.startsWith(line.name) ? [[key.slice(line.name.length + 1), value]] : [])));
    expect(Object.keys(of(CURRENT))).toHaveLength(5);
    expect(of(CURRENT)).toEqual(of(LEGACY));
  });
});
