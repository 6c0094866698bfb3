import { z } from 'zod';
import { ERROR_STATUS, FieldError, INTERFACE_VERSION, MCP_SCOPE, Problem } from '@adintel/contracts';
import { mcpResourceUrl } from '@adintel/config';
import { describeCost, inputJsonSchema, outputJsonSchema, REST_PREFIX, TOOLS, worstCaseCost, type ToolDefinition } from '@adintel/tool-catalogue';
import { IDEMPOTENCY_HEADER } from '../idempotency/idempotency-key';
import { mediaOpenApiPaths } from '../media/media.openapi';
import { problemTitle, problemTypeUri } from '../problems/problem';

type Json = Record<string, unknown>;

const RESULT_SCHEMA = (tool: ToolDefinition) =>
  `${tool.name.replace(/(^|_)(\w)/g, (_m, _sep, c: string) => c.toUpperCase())}Result`;

const isPaid = (tool: ToolDefinition) => worstCaseCost(tool, { limit: 1 }) > 0;

/**
 * The OpenAPI 3.1 description of the REST twins (REST_PREFIX), generated from the same catalogue as the routes and the
 * MCP tools, so the document cannot drift from what is served.
 */
export function buildOpenApi(baseUrl: string): Json {
  const paths: Json = {};
  const schemas: Json = {
    Problem: toSchema(Problem),
    FieldError: toSchema(FieldError),
  };
  for (const tool of TOOLS) {
    schemas[RESULT_SCHEMA(tool)] = outputJsonSchema(tool);
    paths[tool.http.path] = { get: operation(tool) };
  }
  // The media routes: not tool twins, described where they are served.
  Object.assign(paths, mediaOpenApiPaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ad intelligence API',
      version: INTERFACE_VERSION,
      summary: 'Read-only analytics over Facebook and TikTok ads, for AI agents.',
      description: describeApi(baseUrl),
    },
    servers: [{ url: `${baseUrl}${REST_PREFIX}` }],
    security: [{ oauth2: [MCP_SCOPE] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description:
            `Bearer JWT with scope ${MCP_SCOPE} and audience ${mcpResourceUrl(baseUrl)} (send it as \`audience\` or \`resource\`). ` +
            'Machines use client credentials after registering at /oauth2/register; people use the authorization code ' +
            'flow with PKCE (S256).',
          flows: {
            clientCredentials: { tokenUrl: `${baseUrl}/oauth2/token`, scopes: { [MCP_SCOPE]: 'read the data tools' } },
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth2/auth`,
              tokenUrl: `${baseUrl}/oauth2/token`,
              scopes: { [MCP_SCOPE]: 'read the data tools' },
            },
          },
        },
      },
      headers: {
        'X-Tokens-Charged': {
          description:
            'tokens this call cost, as the ledger charged them; `pending` when metering’s answer was lost: the charge is then ' +
            'X-Tokens-Pending tokens or, if it never landed, 0, and list_usage_events shows it under X-Usage-Request-Id',
          schema: { oneOf: [{ type: 'integer', minimum: 0 }, { const: 'pending' }] },
        },
        'X-Tokens-Pending': { description: 'with X-Tokens-Charged: pending, the charge that was sent', schema: { type: 'integer', minimum: 0 } },
        'X-Usage-Request-Id': { description: 'with X-Tokens-Charged: pending, the request_id of the call in list_usage_events', schema: { type: 'string' } },
        'Idempotent-Replay': {
          description: '`true` when this is the stored answer of an earlier call with the same Idempotency-Key (charged 0)',
          schema: { const: 'true' },
        },
        'X-Tokens-Remaining': {
          description: 'tokens left in the pool that paid (absent when no pool was consulted)',
          schema: { type: 'integer', minimum: 0 },
        },
        'X-Request-Id': { description: 'id of this request; send your own to correlate retries', schema: { type: 'string' } },
        'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
        'WWW-Authenticate': {
          description: 'Bearer challenge with resource_metadata (RFC 9728), scope and, for a bad token, error',
          schema: { type: 'string' },
        },
      },
      responses: problemResponses(),
    },
  };
}

function operation(tool: ToolDefinition): Json {
  const paid = isPaid(tool);
  const responses: Json = {
    '200': {
      description: `${tool.title}. Cost: ${describeCost(tool.cost)}.`,
      headers: {
        'X-Tokens-Charged': { $ref: '#/components/headers/X-Tokens-Charged' },
        'X-Tokens-Remaining': { $ref: '#/components/headers/X-Tokens-Remaining' },
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        ...(paid
          ? Object.fromEntries(['X-Tokens-Pending', 'X-Usage-Request-Id', 'Idempotent-Replay'].map((h) => [h, { $ref: `#/components/headers/${h}` }]))
          : {}),
      },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${RESULT_SCHEMA(tool)}` } } },
    },
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/Unauthorized' },
    ...(paid ? { '402': { $ref: '#/components/responses/PaymentRequired' } } : {}),
    '403': { $ref: '#/components/responses/Forbidden' },
    '404': { $ref: '#/components/responses/NotFound' },
    ...(paid ? { '409': { $ref: '#/components/responses/Conflict' } } : {}),
    ...(Object.hasOwn(tool.args('http').shape, 'changed_since') ? { '410': { $ref: '#/components/responses/Gone' } } : {}),
    ...(tool.admission !== 'unlimited' ? { '429': { $ref: '#/components/responses/TooManyRequests' } } : {}),
    '503': { $ref: '#/components/responses/ServiceUnavailable' },
    '504': { $ref: '#/components/responses/GatewayTimeout' },
  };
  return {
    operationId: tool.name,
    summary: tool.title,
    description: `${tool.description}\n\nMCP twin: the tool \`${tool.name}\` at /mcp answers with the same JSON.`,
    parameters: [...parameters(tool), ...(paid ? [IDEMPOTENCY_PARAMETER] : [])],
    responses,
    'x-mcp-tool': tool.name,
    'x-token-cost': describeCost(tool.cost),
  };
}

const IDEMPOTENCY_PARAMETER: Json = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'your key for this call (1-255 visible ASCII characters, e.g. a UUID). A repeat with the same key, tool and arguments ' +
    'within IDEMPOTENCY_TTL_SECONDS gets the stored answer with Idempotent-Replay: true and is charged 0; the same key ' +
    'with other arguments is a 409. Without a key every call runs and is charged.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function parameters(tool: ToolDefinition): Json[] {
  const schema = inputJsonSchema(tool, 'http') as { properties?: Record<string, Json>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    const inPath = tool.http.pathParams.includes(name);
    const notes = [typeof description === 'string' ? description : undefined];
    if (propertySchema['type'] === 'array') notes.push(`repeat the parameter (${name}=a&${name}=b) or separate values with commas (${name}=a,b)`);
    const slashValues = ((propertySchema['enum'] as unknown[] | undefined) ?? []).filter((v) => String(v).includes('/'));
    if (inPath && slashValues.length) notes.push(`${slashValues.join(', ')} may be sent as is or with the slash encoded as %2F`);
    const text = notes.filter(Boolean).join('; ');
    return {
      name,
      in: inPath ? 'path' : 'query',
      required: inPath || required.has(name),
      ...(text ? { description: text } : {}),
      schema: propertySchema,
      ...(propertySchema['type'] === 'array' ? { style: 'form', explode: true } : {}),
    };
  });
}

function problemResponses(): Json {
  const problem = (description: string, headers: string[] = []) => ({
    description,
    ...(headers.length
      ? { headers: Object.fromEntries(headers.map((h) => [h, { $ref: `#/components/headers/${h}` }])) }
      : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  });
  return {
    BadRequest: problem('Invalid arguments: `errors[]` names each bad field and what is allowed.'),
    Unauthorized: problem('No access token, or one that is expired, forged or for another audience.', ['WWW-Authenticate']),
    PaymentRequired: problem(
      'The paying pool cannot cover the worst case of this call: the problem carries `needed`, `remaining` and `max_affordable_limit`.',
    ),
    Forbidden: problem(`The access token lacks the scope ${MCP_SCOPE} (error="insufficient_scope").`, ['WWW-Authenticate']),
    NotFound: problem('No such resource, or no such id.'),
    Conflict: problem(
      'The Idempotency-Key was used for a different call, or its first call is still running (then with Retry-After).',
      ['Retry-After'],
    ),
    Gone: problem('`changed_since` is older than the change feed keeps, or of another store or reloaded data: re-baseline with a plain search.'),
    TooManyRequests: problem('Too many calls for this account right now (paid calls, free data tool calls, or scanning calls running at once).', ['Retry-After']),
    RangeNotSatisfiable: problem('The Range names no byte of the file (Content-Range: bytes */size says its size), or cannot be read; nothing was charged.'),
    ServiceUnavailable: problem('A backing service is down; nothing was charged.', ['Retry-After']),
    GatewayTimeout: problem('A backing service did not answer in time; nothing was charged.'),
  };
}

function describeApi(baseUrl: string): string {
  const statusCodes = Object.entries(ERROR_STATUS)
    .map(([code, status]) => `| ${status} | \`${problemTypeUri(baseUrl, code)}\` | ${problemTitle(code)} |`);
  return [
    'Every resource here is also an MCP tool at `/mcp` with the same arguments and the same JSON.',
    '',
    '**Connect:** register a client (`POST /oauth2/register`), get a token (`POST /oauth2/token` with',
    `\`grant_type=client_credentials\`, \`scope=${MCP_SCOPE}\`, \`audience=${mcpResourceUrl(baseUrl)}\`), then call with`,
    '`Authorization: Bearer <token>`.',
    '',
    '**Costs:** each operation names its cost. A paid call holds its worst case (limit x unit price) and is charged for what it',
    'returns; a failed or empty call costs nothing. `X-Tokens-Charged` and `X-Tokens-Remaining` report it',
    '(`X-Tokens-Charged: pending` when metering’s answer was lost). Send `Idempotency-Key` to make a retry a free replay.',
    '',
    '**Errors** are `application/problem+json` (RFC 9457):',
    '',
    '| status | type | title |',
    '|---|---|---|',
    ...statusCodes,
  ].join('\n');
}

function toSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
  return json;
}
