import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { newAgentToken } from './agent';
import { startStack, type Stack } from './stack';
import { startBearerProxy, type BearerProxy } from './bearer-proxy';

/** Scenarios this server cannot pass, each with its reason; the CLI fails the run on a new failure AND on a stale entry. */
const BASELINE = join(__dirname, 'conformance-baseline.yml');
/** Scenarios that apply to any tools-only stateless server (and our resources): they must pass, never be baselined. */
const MUST_PASS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];
const CLI = join(WORKSPACE_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

interface CliRun {
  readonly code: number;
  readonly output: string;
}

/** The official MCP conformance CLI (0.1.16), on the Node that runs the tests (it needs Node >= 22). */
function runConformance(url: string, cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'server', '--url', url, '--expected-failures', BASELINE],
      { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

describe('MCP conformance suite against /mcp (built stack, a registered agent, a bearer-adding proxy)', () => {
  let stack: Stack;
  let proxy: BearerProxy;
  let results: string;

  beforeAll(async () => {
    stack = await startStack();
    const { token } = await newAgentToken(stack.baseUrl);
    proxy = await startBearerProxy(stack.baseUrl, token);
    results = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await stack?.stop();
    if (results) rmSync(results, { recursive: true, force: true });
  }, 60_000);

  it('passes every scenario outside the checked-in baseline, and every baseline entry still fails', async () => {
    const run = await runConformance(`${proxy.url}/mcp`, results);
    process.stdout.write(`${run.output}\n`);
    for (const scenario of MUST_PASS) expect(run.output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    expect(readFileSync(BASELINE, 'utf8')).not.toMatch(new RegExp(`^\\s*- (${MUST_PASS.join('|')})\\s*$`, 'm'));
    expect({ code: run.code, unexpected: run.output.split('\n').filter((line) => /unexpected|stale|regression/i.test(line)) }).toEqual({ code: 0, unexpected: [] });
  }, 300_000);
});
