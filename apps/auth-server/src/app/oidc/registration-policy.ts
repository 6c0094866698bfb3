/** Scopes this server knows. `mcp:read` is the only one an access token carries. */
export const MCP_SCOPE = 'mcp:read';
export const SUPPORTED_SCOPES = ['openid', 'offline_access', MCP_SCOPE] as const;

const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'];
const RESPONSE_TYPES = ['code'];
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];
const MAX_REDIRECT_URIS = 10;

/**
 * Metadata that would make this server (or a page it renders) fetch a URL, or that needs features
 * this server does not offer. Named separately so the error says why.
 */
const REFUSED_FIELDS = new Set([
  'jwks_uri',
  'jwks',
  'sector_identifier_uri',
  'request_uris',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'initiate_login_uri',
  'backchannel_logout_uri',
  'frontchannel_logout_uri',
  'software_statement',
  'client_id',
  'client_secret',
]);

type FieldCheck = (value: unknown) => string | undefined;

const stringOf =
  (max: number): FieldCheck =>
  (value) =>
    typeof value === 'string' && value.length > 0 && value.length <= max ? undefined : `must be a string of 1 to ${max} characters`;

const subsetOf =
  (allowed: string[], { min = 0, max = allowed.length } = {}): FieldCheck =>
  (value) =>
    Array.isArray(value) && value.length >= min && value.length <= max && value.every((v) => typeof v === 'string' && allowed.includes(v))
      ? undefined
      : `must be an array of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;

const oneOf =
  (allowed: string[]): FieldCheck =>
  (value) =>
    typeof value === 'string' && allowed.includes(value) ? undefined : `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * OAuth 2.1: a redirect URI is https, or http on the loopback interface (native apps, RFC 8252 7.3),
 * and has no fragment. Anything else would let a registered client send codes to a network attacker.
 */
function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048 || !URL.canParse(value)) return 'must be absolute URIs of at most 2048 characters';
  const url = new URL(value);
  if (url.hash || value.includes('#')) return `must not have a fragment (${value})`;
  // A wildcard is no host anyone can own; a redirect URI must name where the code goes, exactly.
  if (url.hostname.includes('*') || url.hostname.includes('%2A') || url.hostname.includes('%2a')) return `must not have a wildcard host (${value})`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `must use https, or http on a loopback address (127.0.0.1, [::1], localhost); got ${JSON.stringify(value)}`;
}

const urisCheck: FieldCheck = (value) => {
  if (!Array.isArray(value) || value.length > MAX_REDIRECT_URIS) return `must be an array of at most ${MAX_REDIRECT_URIS} URIs`;
  return value.map(redirectUriProblem).find((problem) => problem !== undefined);
};

/** The accepted metadata, and how each is checked. Anything else is refused. */
const ACCEPTED: Record<string, FieldCheck> = {
  client_name: stringOf(200),
  grant_types: subsetOf(GRANT_TYPES, { min: 1 }),
  response_types: subsetOf(RESPONSE_TYPES),
  token_endpoint_auth_method: oneOf(AUTH_METHODS),
  scope: (value) =>
    typeof value === 'string' && value.split(' ').every((s) => (SUPPORTED_SCOPES as readonly string[]).includes(s))
      ? undefined
      : `must be a space-separated list of ${SUPPORTED_SCOPES.join(', ')}`,
  redirect_uris: urisCheck,
  post_logout_redirect_uris: urisCheck,
  application_type: oneOf(['web', 'native']),
  client_uri: stringOf(2048),
  contacts: (value) =>
    Array.isArray(value) && value.length <= 5 && value.every((v) => typeof v === 'string' && v.length <= 254) ? undefined : 'must be an array of at most 5 email addresses',
  software_id: stringOf(200),
  software_version: stringOf(100),
};

const ACCEPTED_REGISTRATION_FIELDS = Object.keys(ACCEPTED);

type RegistrationVerdict = { ok: true } | { ok: false; error: 'invalid_client_metadata' | 'invalid_request'; error_description: string };

/**
 * Checks an open (unauthenticated) registration request against the allow-list before the provider sees it.
 * `issuerOrigin`: redirect URIs on the server's own origin are refused, so no client can make this server send a
 * person (and a code) to one of its own pages.
 */
export function checkRegistration(body: unknown, issuerOrigin?: string): RegistrationVerdict {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, error: 'invalid_request', error_description: 'the registration request must be a JSON object' };
  }
  const metadata = body as Record<string, unknown>;
  for (const [field, value] of Object.entries(metadata)) {
    if (REFUSED_FIELDS.has(field)) {
      return { ok: false, error: 'invalid_client_metadata', error_description: `${field} is not accepted by this server` };
    }
    const check = ACCEPTED[field];
    if (!check) {
      return {
        ok: false,
        error: 'invalid_client_metadata',
        error_description: `${field} is not accepted by this server; accepted: ${ACCEPTED_REGISTRATION_FIELDS.join(', ')}`,
      };
    }
    const problem = check(value);
    if (problem) return { ok: false, error: 'invalid_client_metadata', error_description: `${field} ${problem}` };
  }
  for (const field of ['redirect_uris', 'post_logout_redirect_uris']) {
    const own = ((metadata[field] as string[] | undefined) ?? []).find((uri) => URL.parse(uri)?.origin === issuerOrigin);
    if (own) return { ok: false, error: 'invalid_client_metadata', error_description: `${field} must not be on this server's own origin (${own})` };
  }
  const grants = (metadata['grant_types'] as string[] | undefined) ?? ['authorization_code'];
  if (grants.includes('client_credentials') && metadata['token_endpoint_auth_method'] === 'none') {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      error_description: 'client_credentials clients authenticate with a secret: token_endpoint_auth_method must not be none',
    };
  }
  return { ok: true };
}
