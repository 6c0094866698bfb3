import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { TOOLS } from '@adintel/tool-catalogue';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

const run = promisify(execFile);

describe('OpenAPI document and docs page', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  let document: { openapi: string; info: { version: string }; paths: Record<string, { get: Record<string, unknown> }>; components: Record<string, Record<string, unknown>> };

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(), metering: fakeMetering().service });
    const res = await fetch(`${gateway.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    document = (await res.json()) as typeof document;
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  it('is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator)', async () => {
    // The validator is ESM-only and locates its schemas through import.meta: run its CLI with this Node.
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const cli = join(WORKSPACE_ROOT, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const { stdout } = await run(process.execPath, [cli, file])
      .catch((error: { stdout: string }) => ({ stdout: error.stdout }))
      .finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(JSON.parse(stdout)).toMatchObject({ valid: true });
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
  });

  it('describes the 20 GET twins and the two media routes with their parameters, costs and problem responses', () => {
    expect(Object.keys(document.paths).sort()).toEqual([...TOOLS.map((t) => t.http.path), '/creo/{id}/media/{n}', '/creo/{id}/media/{n}/thumbnail'].sort());
    const file = document.paths['/creo/{id}/media/{n}']?.get as { operationId: string; responses: Record<string, unknown>; 'x-token-cost': string };
    expect(file.operationId).toBe('media_file');
    expect(file['x-token-cost']).toMatch(/^10 tokens per call/);
    expect(Object.keys(file.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '402', '404', '416']));
    expect(document.paths['/creo/{id}/media/{n}/thumbnail']?.get['responses']).not.toHaveProperty('402');
    const ads = document.paths['/ads']?.get as { operationId: string; parameters: { name: string; in: string; explode?: boolean }[]; responses: Record<string, unknown> };
    expect(ads.operationId).toBe('search_ads');
    expect(ads.parameters.find((p) => p.name === 'platforms')).toMatchObject({ in: 'query', explode: true });
    expect(Object.keys(ads.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '429', '503', '504']));
    const trends = document.paths['/analytics/trends/{dimension}']?.get as { parameters: { name: string; in: string; required: boolean }[] };
    expect(trends.parameters.find((p) => p.name === 'dimension')).toMatchObject({ in: 'path', required: true });
    expect(document.paths['/usage']?.get['responses']).not.toHaveProperty('402');
  });

  it('declares oauth2 client credentials and authorization code flows with scope mcp:read', () => {
    expect(document.components['securitySchemes']).toMatchObject({
      oauth2: {
        type: 'oauth2',
        flows: {
          clientCredentials: { tokenUrl: `${TEST_BASE_URL}/oauth2/token`, scopes: { 'mcp:read': expect.any(String) } },
          authorizationCode: { authorizationUrl: `${TEST_BASE_URL}/oauth2/auth`, tokenUrl: `${TEST_BASE_URL}/oauth2/token` },
        },
      },
    });
  });

  it('serves a docs page from this origin only, with its assets and the problem anchors', async () => {
    const page = await fetch(`${gateway.url}/api/v1/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/src="https?:/);
    expect(html).toContain('id="problem-insufficient_balance"');
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      expect(html).toContain(`/api/v1/docs/${asset}`);
      const res = await fetch(`${gateway.url}/api/v1/docs/${asset}`);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await fetch(`${gateway.url}/api/v1/docs/package.json`)).status).toBe(404);
  });
});
