import { checkRegistration } from '../../../src/app/oidc/registration-policy';

const CONTRACT_BODY = {
  client_name: 'my-agent',
  grant_types: ['client_credentials'],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'mcp:read',
};

describe('checkRegistration', () => {
  it('accepts the contract body and an interactive public PKCE client', () => {
    expect(checkRegistration(CONTRACT_BODY)).toEqual({ ok: true });
    expect(
      checkRegistration({
        client_name: 'Inspector',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1:6274/oauth/callback'],
        client_uri: 'https://example.com',
      }),
    ).toEqual({ ok: true });
  });

  it.each(['jwks_uri', 'sector_identifier_uri', 'request_uris', 'logo_uri', 'jwks', 'software_statement'])('refuses %s, which would make the server fetch or trust outside material', (field) => {
    expect(checkRegistration({ ...CONTRACT_BODY, [field]: 'https://attacker.example/x' })).toEqual({
      ok: false,
      error: 'invalid_client_metadata',
      error_description: `${field} is not accepted by this server`,
    });
  });

  it('refuses metadata outside the allow-list, naming the field and what is accepted', () => {
    const verdict = checkRegistration({ ...CONTRACT_BODY, id_token_encrypted_response_alg: 'RSA-OAEP' });
    expect(verdict).toMatchObject({ ok: false, error: 'invalid_client_metadata' });
    expect(!verdict.ok && verdict.error_description).toMatch(/^id_token_encrypted_response_alg is not accepted.*accepted: client_name/);
  });

  it('refuses unknown scopes and grant types, bad shapes and secretless machine clients', () => {
    expect(checkRegistration({ ...CONTRACT_BODY, scope: 'mcp:read admin' })).toMatchObject({ ok: false, error_description: expect.stringMatching(/^scope /) });
    expect(checkRegistration({ ...CONTRACT_BODY, grant_types: ['password'] })).toMatchObject({ ok: false, error_description: expect.stringMatching(/^grant_types /) });
    expect(checkRegistration({ ...CONTRACT_BODY, client_name: 42 })).toMatchObject({ ok: false, error_description: expect.stringMatching(/^client_name /) });
    expect(checkRegistration({ ...CONTRACT_BODY, token_endpoint_auth_method: 'none' })).toMatchObject({ ok: false, error: 'invalid_client_metadata' });
    expect(checkRegistration([CONTRACT_BODY])).toMatchObject({ ok: false, error: 'invalid_request' });
  });

  it('refuses wildcard hosts and the issuer\'s own origin as redirect URIs (issue 23)', () => {
    const app = (redirect: string) => ({ grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none', redirect_uris: [redirect] });
    expect(checkRegistration(app('https://*.example.com/cb'))).toMatchObject({ ok: false, error_description: expect.stringContaining('wildcard') });
    expect(checkRegistration(app('https://ads.example.com/account'), 'https://ads.example.com')).toMatchObject({
      ok: false,
      error_description: expect.stringContaining("this server's own origin"),
    });
    expect(checkRegistration(app('https://app.example/cb'), 'https://ads.example.com')).toEqual({ ok: true });
  });
});
