import { adaptTokenRequest } from '../../../src/app/oidc/token-request';

const MCP = 'https://ads.example.com/mcp';

describe('adaptTokenRequest', () => {
  it('turns the contract’s audience into an RFC 8707 resource', () => {
    const body: Record<string, string | string[] | undefined> = { grant_type: 'client_credentials', scope: 'mcp:read', audience: MCP };
    expect(adaptTokenRequest(body)).toEqual({ ok: true });
    expect(body).toEqual({ grant_type: 'client_credentials', scope: 'mcp:read', resource: MCP });
  });

  it('accepts audience and resource together when they agree, refuses them when they do not', () => {
    expect(adaptTokenRequest({ grant_type: 'client_credentials', audience: MCP, resource: MCP })).toEqual({ ok: true });
    expect(adaptTokenRequest({ grant_type: 'client_credentials', audience: MCP, resource: 'https://other.example' })).toMatchObject({
      ok: false,
      error: 'invalid_target',
    });
  });

  it('refuses unknown scopes instead of dropping them', () => {
    expect(adaptTokenRequest({ grant_type: 'client_credentials', scope: 'mcp:read mcp:write' })).toMatchObject({
      ok: false,
      error: 'invalid_scope',
      error_description: expect.stringContaining('"mcp:write"'),
    });
    expect(adaptTokenRequest({ grant_type: 'client_credentials', scope: 'openid' })).toMatchObject({ ok: false, error: 'invalid_scope' });
    expect(adaptTokenRequest({ grant_type: 'refresh_token', scope: 'openid mcp:read' })).toEqual({ ok: true });
  });

  it('gives a client-credentials request without scope mcp:read', () => {
    const body: Record<string, string | string[] | undefined> = { grant_type: 'client_credentials' };
    adaptTokenRequest(body);
    expect(body['scope']).toBe('mcp:read');
  });
});
