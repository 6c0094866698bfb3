import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { importJWK, SignJWT } from 'jose';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { TOOLS } from '@adintel/tool-catalogue';
import { callTool, CONTRACT_REGISTRATION, getJson, newAgentToken, register, requestToken } from './agent';
import { STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';
import { argumentsFor, findSeedIds, restPathFor, type SeedIds } from './tool-arguments';

const TRIAL = 500;

function withoutCursorBytes(result: unknown): unknown {
  const pagination = (result as { pagination?: { next_cursor?: unknown } } | undefined)?.pagination;
  if (!pagination || typeof pagination.next_cursor !== 'string') return result;
  return { ...(result as object), pagination: { ...pagination, next_cursor: '<cursor>' } };
}

describe('the service end to end (four apps as real processes, real Redis, seeded SQLite)', () => {
  let stack: Stack;
  let base: string;
  let ids: SeedIds;

  beforeAll(async () => {
    stack = await startStack();
    base = stack.baseUrl;
    ids = await findSeedIds(base, (await newAgentToken(base)).token);
  }, STACK_START_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('works as the contract writes it: register -> token with audience -> tools/call search_ads -> get_usage shows the charge', async () => {
    const client = await register(base, CONTRACT_REGISTRATION);
    expect(client).toEqual(expect.objectContaining({ client_id: expect.any(String), client_secret: expect.any(String) }));
    const token = await requestToken(base, client, { grant_type: 'client_credentials', scope: 'mcp:read', audience: `${base}/mcp` });
    expect(token.status).toBe(200);
    const accessToken = String(token.body['access_token']);

    const catalog = await callTool(base, accessToken, 'get_catalog');
    const [firstCountry] = catalog.body.result?.structuredContent?.['countries'] as { value: string }[];
    if (!firstCountry) throw new Error('get_catalog listed no country');
    const country = firstCountry.value;
    const search = await callTool(base, accessToken, 'search_ads', { country, limit: 5 });
    expect(search.status).toBe(200);
    const result = search.body.result;
    expect(result?.isError).toBeFalsy();
    const page = result?.structuredContent as { data: { countries: string[] }[]; pagination: { total: number } };
    expect(page.data).toHaveLength(5);
    for (const ad of page.data) expect(ad.countries).toContain(country);
    // The text holds the same page for the model, its ads as one table (docs/agents.md).
    const text = JSON.parse(result?.content[0]?.text ?? '{}') as { data: { columns: string[]; rows: unknown[][] }; pagination: unknown };
    expect(text.data.rows.map((row) => Object.fromEntries(text.data.columns.map((c, i) => [c, row[i]])))).toEqual(page.data);
    expect(text.pagination).toEqual(page.pagination);
    expect(result?._meta).toMatchObject({ tokens_charged: 5, tokens_remaining: TRIAL - 5 });

    const usage = await callTool(base, accessToken, 'get_usage');
    expect(usage.body.result?.structuredContent).toMatchObject({ plan: 'trial', pool: 'agent', used: 5, remaining: TRIAL - 5 });
  });

  it('follows one request id through the gateway, metering and query-api in their JSON logs', async () => {
    const { token } = await newAgentToken(base);
    const requestId = `e2e-trace-${Date.now()}`;
    const res = await fetch(`${base}/api/v1/ads?limit=2`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const linesOf = (app: keyof Stack['apps']) =>
      stack.apps[app].output.flatMap((line) => {
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          return entry['request_id'] === requestId ? [entry] : [];
        } catch {
          return [];
        }
      });
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (['mcp-gateway', 'metering', 'query-api'] as const).some((app) => linesOf(app).length === 0)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(linesOf('mcp-gateway')).toContainEqual(expect.objectContaining({ service: 'mcp-gateway', res: { status: 200 } }));
    expect(linesOf('query-api')).toContainEqual(expect.objectContaining({ service: 'query-api', pattern: 'query.ads.search', msg: 'message handled' }));
    expect(linesOf('metering')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ service: 'metering', pattern: 'metering.reserve' }),
        expect.objectContaining({ service: 'metering', pattern: 'metering.settle' }),
      ]),
    );
  });

  it('pages GET /api/v1/ads with cursor, without overlap', async () => {
    const { token } = await newAgentToken(base);
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < 4; page++) {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const { res, body } = await getJson(base, token, `/api/v1/ads?limit=25${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-tokens-charged')).toBe('25');
      const data = body['data'] as { id: string }[];
      expect(data).toHaveLength(25);
      for (const ad of data) {
        expect(seen.has(ad.id)).toBe(false);
        seen.add(ad.id);
      }
      const pagination = body['pagination'] as { next_cursor: string | null; has_more: boolean };
      expect(pagination.has_more).toBe(true);
      cursor = pagination.next_cursor;
    }
    expect(seen.size).toBe(100);
    const forged = await getJson(base, token, `/api/v1/ads?limit=25&cursor=${encodeURIComponent(`${cursor}x`)}`);
    expect(forged.res.status).toBe(400);
    expect(forged.body['errors']).toEqual([expect.objectContaining({ field: 'cursor' })]);
  });

  it('answers every tool on both surfaces with the same JSON', async () => {
    const { token } = await newAgentToken(base);
    for (const tool of TOOLS) {
      const args = argumentsFor(tool, ids);
      const rest = await getJson(base, token, restPathFor(tool, args));
      const mcp = await callTool(base, token, tool.name, args);
      expect([tool.name, rest.res.status]).toEqual([tool.name, 200]);
      expect([tool.name, mcp.body.result?.isError ?? false]).toEqual([tool.name, false]);
      if (tool.name === 'list_usage_events') continue; // the REST call itself adds a ledger entry before the MCP one
      // Cursors are signed with their time of issue: equal in presence, not in bytes.
      expect([tool.name, withoutCursorBytes(mcp.body.result?.structuredContent)]).toEqual([tool.name, withoutCursorBytes(rest.body)]);
    }
  });

  it('cuts a trial agent off at exactly 500 tokens with an actionable 402, and get_usage still answers', async () => {
    const { token } = await newAgentToken(base);
    let charged = 0;
    for (let i = 0; i < 5; i++) {
      const { res } = await getJson(base, token, '/api/v1/ads?limit=90');
      expect(res.status).toBe(200);
      charged += Number(res.headers.get('x-tokens-charged'));
    }
    expect(charged).toBe(450);
    const short = await getJson(base, token, '/api/v1/ads?limit=90');
    expect(short.res.status).toBe(402);
    expect(short.res.headers.get('content-type')).toContain('application/problem+json');
    expect(short.body).toMatchObject({ status: 402, needed: 90, remaining: 50, max_affordable_limit: 50 });
    expect(short.body['detail']).toContain('limit=50');

    const last = await getJson(base, token, `/api/v1/ads?limit=${short.body['max_affordable_limit']}`);
    expect(last.res.status).toBe(200);
    expect(last.res.headers.get('x-tokens-remaining')).toBe('0');

    const mcp = await callTool(base, token, 'search_ads', { limit: 1 });
    expect(mcp.body.result?.isError).toBe(true);
    expect(JSON.parse(mcp.body.result?.content[0]?.text ?? '{}')).toMatchObject({ status: 402, needed: 1, remaining: 0, max_affordable_limit: 0 });

    const usage = await getJson(base, token, '/api/v1/usage');
    expect(usage.res.status).toBe(200);
    expect(usage.body).toMatchObject({ used: TRIAL, remaining: 0 });
    expect((await callTool(base, token, 'get_usage')).body.result?.structuredContent).toMatchObject({ used: TRIAL, remaining: 0 });
  });

  it('is listed by the MCP Inspector CLI', async () => {
    const { token } = await newAgentToken(base);
    // The CLI's launcher spawns whatever `node` is on PATH; run its entry point with this Node (>= 22.19 needed).
    // It looks for its package.json relative to the working directory, so run it from its build folder.
    const buildDir = join(WORKSPACE_ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['index.js', `${base}/mcp`, '--transport', 'http', '--method', 'tools/list', '--header', `Authorization: Bearer ${token}`],
      { timeout: 30_000, cwd: buildDir },
    );
    const listed = JSON.parse(stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  });

  describe('refuses bad tokens with the right status and challenge', () => {
    const metadata = () => `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;

    async function craft(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
      const key = await importJWK(stack.signingKey, 'ES256');
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: base, aud: `${base}/mcp`, sub: 'crafted-agent', scope: 'mcp:read', iat: now - 60, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: stack.signingKey.kid, ...header })
        .sign(key);
    }

    async function expectRefusal(token: string | undefined, status: number, error?: string) {
      for (const surface of ['rest', 'mcp'] as const) {
        const res =
          surface === 'rest'
            ? (await getJson(base, token, '/api/v1/ads/count')).res
            : await fetch(`${base}/mcp`, {
                method: 'POST',
                headers: {
                  ...(token ? { authorization: `Bearer ${token}` } : {}),
                  'content-type': 'application/json',
                  accept: 'application/json, text/event-stream',
                },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
              });
        const challenge = res.headers.get('www-authenticate') ?? '';
        expect([surface, res.status]).toEqual([surface, status]);
        expect(challenge).toContain(metadata());
        if (error) expect(challenge).toContain(`error="${error}"`);
      }
    }

    it('accepts the crafted baseline, so each refusal below is caused by its one defect', async () => {
      expect((await getJson(base, await craft({}), '/api/v1/ads/count')).res.status).toBe(200);
    });

    it('missing: 401 with the resource metadata challenge', async () => {
      await expectRefusal(undefined, 401);
    });

    it('forged: 401 invalid_token', async () => {
      const genuine = (await newAgentToken(base)).token;
      const [head = '', payload = ''] = genuine.split('.'); // a JWT always has three parts
      const tampered = JSON.parse(Buffer.from(payload, 'base64url').toString());
      tampered.sub = 'someone-else';
      await expectRefusal(`${head}.${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${genuine.split('.')[2]}`, 401, 'invalid_token');
    });

    it('expired: 401 invalid_token', async () => {
      const now = Math.floor(Date.now() / 1000);
      await expectRefusal(await craft({ exp: now - 120, iat: now - 3720 }), 401, 'invalid_token');
    });

    it('alg=none: 401 invalid_token', async () => {
      const now = Math.floor(Date.now() / 1000);
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const unsigned = `${part({ alg: 'none', typ: 'at+jwt' })}.${part({ iss: base, aud: `${base}/mcp`, sub: 'x', scope: 'mcp:read', exp: now + 600 })}.`;
      await expectRefusal(unsigned, 401, 'invalid_token');
    });

    it('foreign audience: refused by the auth server (invalid_target) and, if crafted, by the gateway (401)', async () => {
      const client = await register(base);
      const refused = await requestToken(base, client, { grant_type: 'client_credentials', scope: 'mcp:read', audience: 'https://other.example/mcp' });
      expect(refused.status).toBe(400);
      expect(refused.body['error']).toBe('invalid_target');
      await expectRefusal(await craft({ aud: 'https://other.example/mcp' }), 401, 'invalid_token');
    });

    it('wrong scope: 403 insufficient_scope', async () => {
      await expectRefusal(await craft({ scope: 'openid' }), 403, 'insufficient_scope');
    });
  });
});
