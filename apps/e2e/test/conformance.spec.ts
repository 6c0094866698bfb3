import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { newAgentToken, register, type RegisteredClient } from './agent';
import { STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';
import { startBearerProxy, type BearerProxy } from './bearer-proxy';

/** Per revision, the scenarios this server cannot pass, each with its reason; the CLI fails the run on a new failure AND on a stale entry. */
const baseline = (revision: Revision) => join(__dirname, `conformance-baseline-${revision}.yml`);
/** Scenarios that apply to any tools-only stateless server (and our resources), per revision: they must pass, never be baselined. */
const MUST_PASS: Record<Revision, string[]> = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'],
  '2026-07-28': ['tools-list', 'resources-list', 'sep-2164-resource-not-found', 'dns-rebinding-protection', 'input-required-result-unsupported-methods'],
};
const CLI = join(WORKSPACE_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

type Revision = '2025-11-25' | '2026-07-28';

interface CliRun {
  readonly code: number;
  readonly output: string;
}

/** The official MCP conformance CLI (the pinned 0.2.0 prerelease), on the Node that runs the tests (it needs Node >= 22). */
function runConformance(args: string[], cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

describe('MCP conformance suite against the running service (a registered agent, a bearer-adding proxy)', () => {
  let stack: Stack;
  let proxy: BearerProxy;
  let agent: RegisteredClient;
  let results: string;

  beforeAll(async () => {
    stack = await startStack();
    const { client, token } = await newAgentToken(stack.baseUrl);
    agent = client;
    proxy = await startBearerProxy(stack.baseUrl, token);
    results = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  }, STACK_START_TIMEOUT_MS);

  afterAll(async () => {
    await proxy?.close();
    await stack?.stop();
    if (results) rmSync(results, { recursive: true, force: true });
  }, 60_000);

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'passes what revision %s requires of a server, but for the baselined fixture scenarios, and every baseline entry still fails',
    async (revision) => {
      const run = await runConformance(['server', '--url', `${proxy.url}/mcp`, '--requirements', revision, '--expected-failures', baseline(revision)], results);
      process.stdout.write(`${run.output}\n`);
      for (const scenario of MUST_PASS[revision]) expect(run.output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
      expect(readFileSync(baseline(revision), 'utf8')).not.toMatch(new RegExp(`^\\s*- (${MUST_PASS[revision].join('|')})\\s*(#.*)?$`, 'm'));
      expect({ code: run.code, unexpected: run.output.split('\n').filter((line) => /unexpected|stale|regression/i.test(line)) }).toEqual({ code: 0, unexpected: [] });
    },
    300_000,
  );

  it("passes the authorization scenario that checks the auth server's metadata", async () => {
    // A confidential client of its own: the scenario reads the metadata and checks what it promises.
    const client = await register(stack.baseUrl, { client_name: 'conformance', grant_types: ['client_credentials'], response_types: [], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp:read' });
    const run = await runConformance(
      ['authorization', '--url', stack.baseUrl, '--scenario', 'authorization-server-metadata-endpoint', '--client-id', client.client_id, '--client-secret', client.client_secret, '--resource', `${stack.baseUrl}/mcp`],
      results,
    );
    process.stdout.write(`${run.output}\n`);
    expect(agent.client_id).not.toBe(client.client_id);
    expect(run.output).toMatch(/Passed: ([1-9]\d*)\/\1, 0 failed, 0 warnings/);
    expect(run.code).toBe(0);
  }, 120_000);
});
