import type { CallToolResult, Client, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Page } from 'playwright-core';

/**
 * A minimal MCP Apps host for tests: the page holds only a sandboxed frame (scripts allowed, opaque origin, as
 * hosts render views) and relays postMessage both ways; the host side is ext-apps' own AppBridge running here
 * in Node, proxying the view's tools/call and resources/read to the real gateway with the real MCP client of an
 * agent (its token), as a host that advertises `serverTools` and `serverResources` does.
 */
const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;background:#fff}iframe{border:0;width:100%;height:100vh;display:block}</style></head>
<body><iframe id="view" sandbox="allow-scripts" title="view"></iframe><script>
const frame = document.getElementById('view');
window.addEventListener('message', (event) => { if (event.source === frame.contentWindow) window.__toHost(event.data); });
window.__toView = (message) => frame.contentWindow.postMessage(message, '*');
window.__load = (html) => { frame.srcdoc = html; };
</script></body></html>`;

class PageTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(private readonly page: Page) {}

  async start() {
    // the page calls __toHost; see mountView
  }

  async send(message: JSONRPCMessage) {
    await this.page.evaluate((m) => (globalThis as unknown as { __toView(m: unknown): void }).__toView(m), message);
  }

  async close() {
    this.onclose?.();
  }

  deliver(message: unknown) {
    this.onmessage?.(message as JSONRPCMessage);
  }
}

export interface MountedView {
  readonly bridge: AppBridge;
  readonly openedLinks: string[];
  /** The URIs the view read through this host (resources/read), in order. */
  readonly resourceReads: string[];
}

export interface HostOptions {
  /** Whether the host proxies resource reads (`serverResources`); a host without it leaves the views without pictures. */
  readonly serverResources?: boolean;
}

/** Loads a view's HTML into the page's frame, completes the MCP Apps handshake, then sends the tool's input and result. */
export async function mountView(
  page: Page,
  client: Client,
  html: string,
  args: Record<string, unknown>,
  result: CallToolResult,
  { serverResources = true }: HostOptions = {},
): Promise<MountedView> {
  const transport = new PageTransport(page);
  await page.exposeFunction('__toHost', (message: unknown) => transport.deliver(message));
  await page.setContent(HOST_PAGE);
  // No client for the bridge: the handlers below forward what this host offers, so the test sees every read.
  const bridge = new AppBridge(null, { name: 'e2e-host', version: '1.0.0' }, { openLinks: {}, serverTools: {}, ...(serverResources && { serverResources: {} }) });
  const openedLinks: string[] = [];
  const resourceReads: string[] = [];
  bridge.oncalltool = async (params) => (await client.callTool(params)) as Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;
  if (serverResources) {
    bridge.onreadresource = async (params) => {
      resourceReads.push(params.uri);
      return (await client.readResource(params)) as Awaited<ReturnType<NonNullable<AppBridge['onreadresource']>>>;
    };
  }
  bridge.onopenlink = async ({ url }) => {
    openedLinks.push(url);
    return {};
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(transport);
  await page.evaluate((source) => (globalThis as unknown as { __load(h: string): void }).__load(source), html);
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  return { bridge, openedLinks, resourceReads };
}
