import { mcpResourceUrl } from '@adintel/config';
import { INTERFACE_VERSION, MCP_SCOPE } from '@adintel/contracts';
import { describeCost, OPENAPI_PATH, REST_DOCS_PATH, restRoute, TOOLS, type ToolDefinition } from '@adintel/tool-catalogue';
import { SERVER_INFO, SERVER_INSTRUCTIONS } from './mcp-tools';

/** The first sentence of a tool's description: what it does, for a one-line entry. */
const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;

const toolLine = (tool: ToolDefinition) =>
  `- \`${tool.name}\` (${restRoute(tool)}; ${describeCost(tool.cost)}): ${firstSentence(tool.description).replace(/\s+/g, ' ')}`;

/**
 * /llms.txt (llmstxt.org): what an agent's crawler needs to find and use the service, generated from the tool
 * catalogue (the one source of tools/list, the REST routes and OpenAPI) and the MCP server's own instructions.
 */
export function llmsTxt(baseUrl: string): string {
  return `# ${SERVER_INFO.title}

> ${SERVER_INSTRUCTIONS}

The same ${TOOLS.length} read-only tools are served as MCP tools and as REST resources (interface version ${INTERFACE_VERSION}).

## Connect

- MCP (Streamable HTTP, stateless; protocol revisions 2025-11-25 and 2026-07-28): ${mcpResourceUrl(baseUrl)}
- Authorization: OAuth 2.1 bearer token with scope \`${MCP_SCOPE}\`. A request without one gets 401 with \`WWW-Authenticate\` naming the protected resource metadata: ${baseUrl}/.well-known/oauth-protected-resource/mcp
- Machine clients register themselves (${baseUrl}/oauth2/register) and use the client_credentials grant with \`resource\` (or \`audience\`) = ${mcpResourceUrl(baseUrl)}; the authorization server's metadata is at ${baseUrl}/.well-known/oauth-authorization-server
- REST: ${baseUrl}${OPENAPI_PATH} (OpenAPI), ${baseUrl}${REST_DOCS_PATH} (reference)

## Tools

${TOOLS.map(toolLine).join('\n')}
`;
}
