import { MCP_SCOPE } from '@adintel/contracts';
import { mcpResourceUrl } from '@adintel/config';
import { ProblemException } from '../problems/problem';

/** RFC 9728: the metadata of the resource `{base}/mcp` lives at `{base}/.well-known/oauth-protected-resource/mcp`. */
const resourceMetadataUrl = (baseUrl: string) => `${baseUrl}/.well-known/oauth-protected-resource/mcp`;

type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** The `WWW-Authenticate` value that tells a client where to learn how to get a token (RFC 6750, RFC 9728). */
function bearerChallenge(baseUrl: string, error?: BearerError, description?: string): string {
  const params = [`resource_metadata="${resourceMetadataUrl(baseUrl)}"`, `scope="${MCP_SCOPE}"`];
  if (error) params.push(`error="${error}"`);
  if (description) params.push(`error_description="${description.replace(/["\\]/g, "'")}"`);
  return `Bearer ${params.join(', ')}`;
}

const STATUS: Record<BearerError, number> = { invalid_request: 400, invalid_token: 401, insufficient_scope: 403 };

/** A refusal of the caller's credentials, with the challenge that goes with it. */
export class AuthProblems {
  constructor(private readonly baseUrl: string) {}

  missing(): ProblemException {
    return new ProblemException({
      status: 401,
      code: 'unauthenticated',
      detail:
        `send an access token: Authorization: Bearer <token>. Get one from the token endpoint with ` +
        `grant_type=client_credentials, scope=${MCP_SCOPE} and audience=${mcpResourceUrl(this.baseUrl)}`,
      headers: { 'WWW-Authenticate': bearerChallenge(this.baseUrl) },
    });
  }

  refused(error: BearerError, detail: string): ProblemException {
    const code = error === 'invalid_request' ? 'invalid_argument' : error;
    return new ProblemException({
      status: STATUS[error],
      code,
      detail,
      headers: { 'WWW-Authenticate': bearerChallenge(this.baseUrl, error, detail) },
    });
  }

  /** The keys cannot be fetched: our trouble, not the caller's. */
  keysUnavailable(): ProblemException {
    return new ProblemException({
      status: 503,
      code: 'unavailable',
      detail: 'access tokens cannot be checked right now; retry shortly',
      extra: { retry_after: 5 },
      headers: { 'Retry-After': '5' },
    });
  }
}
