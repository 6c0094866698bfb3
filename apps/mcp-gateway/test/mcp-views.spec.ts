import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '@adintel/tool-catalogue';
import { fakeMetering, fakeQuery } from './support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from './support/gateway-harness';
import { TestIssuer } from './support/test-issuer';

describe('MCP Apps views at /mcp (real SDK client, built views)', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  let client: Client;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(5), metering: fakeMetering().service });
    const token = await issuer.token({ sub: 'views-agent' });
    client = new Client({ name: 'views-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await issuer?.close();
  });

  it('declares the resources capability', () => {
    expect(client.getServerCapabilities()?.resources).toBeDefined();
  });

  it('names the view of each tool the catalogue gives one, and only those', async () => {
    const { tools } = await client.listTools();
    const named = Object.fromEntries(tools.filter((tool) => tool._meta?.['ui']).map((tool) => [tool.name, tool._meta?.['ui']]));
    expect(named).toEqual({
      search_ads: { resourceUri: 'ui://ad-intel/ad-gallery.html' },
      get_trends: { resourceUri: 'ui://ad-intel/trend-chart.html' },
      get_advertiser: { resourceUri: 'ui://ad-intel/advertiser-card.html' },
    });
    expect(Object.keys(named).sort()).toEqual(TOOLS.filter((tool) => tool.view).map((tool) => tool.name).sort());
    expect(tools.find((tool) => tool.name === 'search_ads')?._meta?.['ui/resourceUri']).toBe('ui://ad-intel/ad-gallery.html');
  });

  it('lists the views and serves each as one self-contained HTML file with a strict CSP', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['ui://ad-intel/ad-gallery.html', 'text/html;profile=mcp-app'],
      ['ui://ad-intel/trend-chart.html', 'text/html;profile=mcp-app'],
      ['ui://ad-intel/advertiser-card.html', 'text/html;profile=mcp-app'],
    ]);
    for (const { uri } of resources) {
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [content] = contents;
      expect(content).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app', _meta: { ui: { csp: {} } } });
      const html = String((content as { text: string }).text);
      expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'/);
      // nothing loaded from elsewhere (the browser test checks that no request leaves the view)
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import|url\(\s*['"]?https?:/);
    }
  });

  it('answers an unknown resource with JSON-RPC -32602 naming the URI (the code the v2 SDK sends on every era)', async () => {
    const error = await client.readResource({ uri: 'ui://ad-intel/nope.html' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain('ui://ad-intel/nope.html');
  });

  it('leaves the tool result as it was: structuredContent and its text copy', async () => {
    const result = (await client.callTool({ name: 'search_ads', arguments: { limit: 2 } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ data: expect.any(Array) });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  });
});
