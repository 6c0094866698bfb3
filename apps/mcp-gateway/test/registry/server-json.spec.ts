import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { INTERFACE_VERSION } from '@adintel/contracts';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { SERVER_INFO } from '../../src/mcp/mcp-tools';

/**
 * The MCP Registry's published schema for server.json, version 2025-12-11 (the registry repository's
 * docs/reference/server-json/server.schema.json of that release, read through the search tool: no network here).
 */
const SCHEMA = JSON.parse(readFileSync(join(__dirname, 'server.schema.2025-12-11.json'), 'utf8')) as { $id: string };
const SERVER_JSON = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'server.json'), 'utf8')) as {
  $schema: string;
  name: string;
  title: string;
  version: string;
  remotes: { type: string; url: string }[];
};

/** The public origin of the production deployment (k8s/overlays/production), where the registry sends clients. */
function productionBaseUrl(): string {
  const kustomization = parse(readFileSync(join(WORKSPACE_ROOT, 'k8s/overlays/production/kustomization.yaml'), 'utf8')) as {
    configMapGenerator: { literals?: string[] }[];
  };
  const literal = kustomization.configMapGenerator.flatMap((generator) => generator.literals ?? []).find((entry) => entry.startsWith('PUBLIC_BASE_URL='));
  if (!literal) throw new Error('k8s/overlays/production sets no PUBLIC_BASE_URL');
  return literal.slice('PUBLIC_BASE_URL='.length);
}

describe('server.json, the listing of this server in the MCP Registry', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(SCHEMA);

  it('is valid against the registry schema it names', () => {
    expect(SERVER_JSON.$schema).toBe(SCHEMA.$id);
    expect({ valid: validate(SERVER_JSON), errors: validate.errors ?? [] }).toEqual({ valid: true, errors: [] });
  });

  it('carries the interface version and the title the MCP server itself reports', () => {
    expect(SERVER_JSON.version).toBe(INTERFACE_VERSION);
    expect({ version: SERVER_JSON.version, title: SERVER_JSON.title }).toEqual({ version: SERVER_INFO.version, title: SERVER_INFO.title });
  });

  it('names one streamable-http remote, the production /mcp, under the reverse-DNS namespace of its host', () => {
    const mcpUrl = `${productionBaseUrl()}/mcp`;
    expect(SERVER_JSON.remotes).toEqual([{ type: 'streamable-http', url: mcpUrl }]);
    const namespace = new URL(mcpUrl).hostname.split('.').reverse().join('.');
    expect(SERVER_JSON.name.split('/')[0]).toBe(namespace);
  });

  it('is checked for real: the schema refuses a listing it must refuse', () => {
    const refused = [
      { ...SERVER_JSON, description: 'x'.repeat(101) },
      { ...SERVER_JSON, name: 'no-namespace' },
      { ...SERVER_JSON, remotes: [{ type: 'streamable-http', url: 'ftp://ads.example.com/mcp' }] },
    ];
    for (const listing of refused) expect(validate(listing)).toBe(false);
  });
});
