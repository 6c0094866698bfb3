import { MCP_SCOPE, SUPPORTED_SCOPES } from './registration-policy';

type TokenRequestVerdict = { ok: true } | { ok: false; error: 'invalid_scope' | 'invalid_target' | 'invalid_request'; error_description: string };

type FormBody = Record<string, string | string[] | undefined>;

const asList = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * Adapts a token request (form body, already parsed) before oidc-provider sees it:
 * - the contract's `audience` becomes RFC 8707 `resource` (the provider only knows `resource`);
 * - unknown scopes are refused instead of silently dropped;
 * - a client-credentials request without scope gets `mcp:read`, the only scope an agent can have.
 * Mutates `body`.
 */
export function adaptTokenRequest(body: FormBody): TokenRequestVerdict {
  const audiences = asList(body['audience']);
  if (audiences.length > 0) {
    const resources = asList(body['resource']);
    const differing = resources.filter((r) => !audiences.includes(r));
    if (differing.length > 0) {
      return { ok: false, error: 'invalid_target', error_description: 'audience and resource name different targets; send one of them' };
    }
    body['resource'] = audiences.length === 1 ? audiences[0] : audiences;
    delete body['audience'];
  }

  const grantType = body['grant_type'];
  const scope = body['scope'];
  if (Array.isArray(scope)) return { ok: false, error: 'invalid_request', error_description: 'scope must be sent once' };
  if (scope === undefined || scope.trim() === '') {
    if (grantType === 'client_credentials') body['scope'] = MCP_SCOPE;
    return { ok: true };
  }
  const allowed: readonly string[] = grantType === 'client_credentials' ? [MCP_SCOPE] : SUPPORTED_SCOPES;
  const unknown = scope.split(' ').filter((s) => s && !allowed.includes(s));
  if (unknown.length > 0) {
    return {
      ok: false,
      error: 'invalid_scope',
      error_description: `unknown or unavailable scope ${unknown.map((s) => JSON.stringify(s)).join(', ')}; allowed: ${allowed.join(' ')}`,
    };
  }
  return { ok: true };
}
