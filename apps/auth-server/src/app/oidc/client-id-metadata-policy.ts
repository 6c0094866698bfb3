import { Logger } from '@nestjs/common';
import { checkAddress, guardedLookup } from '@adintel/public-fetch';
import ipaddr from 'ipaddr.js';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02): a client whose
 * `client_id` is an HTTPS URL is described by the JSON document at that URL. oidc-provider fetches,
 * validates and caches the document (`features.clientIdMetadataDocument`); this file is our policy around it:
 * - which URLs may be fetched at all (`allowFetch`): https, a host name or public IP, a path, no user info;
 * - how they are fetched (`fetch`): every resolved address must be globally routable (checked in the
 *   connection's own DNS lookup, so a name cannot resolve to a public address for the check and a private
 *   one for the connection), no redirects, a time limit, a size limit, `application/json` only;
 * - which clients may use the result (`allowClient`): public clients of the authorization-code flow
 *   (PKCE S256 is required for every client by the provider configuration), and the redirect_uri of the
 *   request must be one of the document's `redirect_uris` exactly (the provider itself would let a
 *   native client's loopback redirect vary its port).
 */

/** The draft the provider implements; acknowledging it makes a breaking change in an update fail loudly. */
export const CIMD_DRAFT = 'draft-02';
export const CIMD_MAX_BYTES = 5 * 1024;
export const CIMD_TIMEOUT_MS = 2_500;
const MAX_CLIENT_ID_LENGTH = 2_048;
const ALLOWED_GRANTS = new Set(['authorization_code', 'refresh_token']);
/** The address guard is shared with query-api's media fetches (libs/public-fetch). */
export { type AddressVerdict, checkAddress } from '@adintel/public-fetch';

export interface CimdPolicyOptions {
  /**
   * TEST ONLY (the config accepts it only with NODE_ENV=test): PEM of a CA. When set, documents may also be
   * fetched from loopback addresses, and TLS trusts this CA alone, so a loopback service can serve a document
   * only with a certificate the test issued, and no public host is reachable at all.
   */
  readonly testLoopbackCa?: string;
  /** Bounds, in seconds, applied to the document's Cache-Control / Expires (the provider's LRU keeps 100 documents). */
  readonly cacheSeconds: { readonly min: number; readonly max: number };
}

export type ClientIdVerdict = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

/** What a client_id URL must look like before anything is fetched from it. */
export function checkClientIdUrl(clientId: string, allowLoopback: boolean): ClientIdVerdict {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return { ok: false, reason: `client_id is longer than ${MAX_CLIENT_ID_LENGTH} characters` };
  const url = URL.parse(clientId);
  if (!url || url.protocol !== 'https:') return { ok: false, reason: 'client_id must be an https URL' };
  if (url.username || url.password) return { ok: false, reason: 'client_id must not carry user info' };
  if (url.pathname === '/' || url.pathname === '') return { ok: false, reason: 'client_id must have a path' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) {
    const verdict = checkAddress(host, allowLoopback);
    if (!verdict.ok) return verdict;
  }
  return { ok: true, url };
}

const isJson = (contentType: string | null) => /^application\/json\s*(;|$)/i.test(contentType ?? '');

/**
 * The provider's `fetch`: our own dispatcher (guarded DNS, time and size limits) replaces the one it passes,
 * and a document that is not `application/json` is refused. Redirects come back as they are (the provider asks
 * for `redirect: 'manual'`) and it refuses any status but 200.
 */
export function createDocumentFetch(options: CimdPolicyOptions): NonNullable<Configuration['fetch']> {
  const allowLoopback = options.testLoopbackCa !== undefined;
  const dispatcher = new Agent({
    connect: { lookup: guardedLookup(allowLoopback), timeout: CIMD_TIMEOUT_MS, ...(options.testLoopbackCa ? { ca: options.testLoopbackCa } : {}) },
    headersTimeout: CIMD_TIMEOUT_MS,
    bodyTimeout: CIMD_TIMEOUT_MS,
    maxResponseSize: CIMD_MAX_BYTES,
    connections: 4,
  });
  return async (input, init) => {
    const response = await undiciFetch(input instanceof Request ? input.url : String(input), {
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init?.headers)),
      signal: init?.signal ?? AbortSignal.timeout(CIMD_TIMEOUT_MS),
      redirect: 'manual',
      dispatcher,
    });
    if (response.status === 200 && !isJson(response.headers.get('content-type'))) {
      await response.body?.cancel();
      throw new Error(`the document's Content-Type is ${response.headers.get('content-type') ?? 'missing'}, not application/json`);
    }
    return response as unknown as Response;
  };
}

type OidcError = Error & { error_description?: string; error_detail?: string; cause?: unknown };

/** The messages of an error and of every cause under it: the provider wraps fetch failures twice. */
function reasons(error: unknown): string {
  const messages: string[] = [];
  for (let current = error as OidcError | undefined; current instanceof Error; current = current.cause as OidcError | undefined) {
    messages.push([current.error_description ?? current.message, current.error_detail].filter(Boolean).join(': '));
  }
  return messages.join(': ');
}

/** The provider's answer to a bad document is a bare invalid_client; the log says why, with the client_id. */
export function logDocumentFailures(provider: Provider, logger: Logger): void {
  const log = (ctx: KoaContextWithOIDC, error: OidcError) => {
    const clientId = ctx.oidc?.params?.['client_id'];
    if (!/client_id metadata document/.test(error.error_description ?? '') || typeof clientId !== 'string') return;
    logger.warn({ msg: 'client_id metadata document refused', client_id: clientId, reason: reasons(error) });
  };
  provider.on('authorization.error', log);
  provider.on('grant.error', log);
}

type ClientIdMetadataDocumentFeature = NonNullable<NonNullable<Configuration['features']>['clientIdMetadataDocument']>;

/** `features.clientIdMetadataDocument` with our policy. */
export function clientIdMetadataDocumentFeature(options: CimdPolicyOptions, logger: Logger): ClientIdMetadataDocumentFeature {
  const allowLoopback = options.testLoopbackCa !== undefined;
  const refuse = (clientId: string, reason: string) => {
    logger.warn({ msg: 'client_id metadata document refused', client_id: clientId, reason });
    return false;
  };
  return {
    enabled: true,
    ack: CIMD_DRAFT,
    cacheDuration: options.cacheSeconds,
    allowFetch: (_ctx, clientId) => {
      const verdict = checkClientIdUrl(clientId, allowLoopback);
      return verdict.ok || refuse(clientId, verdict.reason);
    },
    allowClient: (ctx: KoaContextWithOIDC, client) => {
      const reason = publicClientProblem(client) ?? redirectProblem(ctx, client.redirectUris ?? []);
      return reason === undefined || refuse(client.clientId, reason);
    },
  };
}

interface ClientShape {
  readonly clientAuthMethod?: string;
  readonly grantTypes?: readonly string[];
  readonly responseTypes?: readonly string[];
  readonly redirectUris?: readonly string[];
}

/** Why a document does not describe a public authorization-code client, if it does not. */
export function publicClientProblem(client: ClientShape): string | undefined {
  if (client.clientAuthMethod !== 'none') return `token_endpoint_auth_method must be "none", not ${JSON.stringify(client.clientAuthMethod)}`;
  const grants = client.grantTypes ?? [];
  if (!grants.includes('authorization_code')) return 'grant_types must include authorization_code';
  const extra = grants.find((grant) => !ALLOWED_GRANTS.has(grant));
  if (extra) return `grant type ${extra} is not allowed for a client_id metadata document`;
  if ((client.responseTypes ?? []).some((type) => type !== 'code')) return 'response_types must be ["code"]';
  if (!(client.redirectUris ?? []).length) return 'redirect_uris must not be empty';
  return undefined;
}

/** The request's redirect_uri, when it names one, must be listed exactly (no loopback port leeway). */
function redirectProblem(ctx: KoaContextWithOIDC | undefined, redirectUris: readonly string[]): string | undefined {
  const requested = ctx?.oidc?.params?.['redirect_uri'];
  if (typeof requested !== 'string' || redirectUris.includes(requested)) return undefined;
  return `redirect_uri ${requested} is not one of the document's redirect_uris`;
}
