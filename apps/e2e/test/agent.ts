/** What an agent does, step by step as README.md's "Connecting an agent" shows it. */
export const CONTRACT_REGISTRATION = {
  client_name: 'e2e agent',
  grant_types: ['client_credentials'],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'mcp:read',
};

export interface RegisteredClient {
  readonly client_id: string;
  readonly client_secret: string;
}

export async function register(baseUrl: string, body: object = CONTRACT_REGISTRATION): Promise<RegisteredClient> {
  const res = await fetch(`${baseUrl}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`register: ${res.status} ${await res.text()}`);
  return (await res.json()) as RegisteredClient;
}

export async function requestToken(
  baseUrl: string,
  client: RegisteredClient,
  form: Record<string, string> = { grant_type: 'client_credentials', scope: 'mcp:read', audience: `${baseUrl}/mcp` },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function newAgentToken(baseUrl: string): Promise<{ client: RegisteredClient; token: string }> {
  const client = await register(baseUrl);
  const { status, body } = await requestToken(baseUrl, client);
  if (status !== 200) throw new Error(`token: ${status} ${JSON.stringify(body)}`);
  return { client, token: String(body['access_token']) };
}

export interface McpToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text: string }[];
  _meta?: Record<string, unknown>;
}

let rpcId = 0;

/** `tools/call` with the headers MCP Streamable HTTP asks for (JSON body, Accept: JSON and event-stream). */
export async function callTool(baseUrl: string, token: string, name: string, args: object = {}) {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await res.json()) as { result?: McpToolResult; error?: { code: number; message: string } };
  return { status: res.status, body };
}

export async function getJson(baseUrl: string, token: string | undefined, path: string) {
  const res = await fetch(`${baseUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { res, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> & { [key: string]: unknown } };
}
