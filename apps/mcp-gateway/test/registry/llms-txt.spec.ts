import { TOOLS } from '@adintel/tool-catalogue';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

describe('/llms.txt at the public origin, generated from the tool catalogue', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(1), metering: fakeMetering().service });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  it('needs no token, says what the service is and how to connect, and gives every tool one line', async () => {
    const res = await fetch(`${gateway.url}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^# Ad intelligence\n\n> Read-only analytics/);
    expect(text).toContain(`${TEST_BASE_URL}/mcp`);
    expect(text).toContain(`${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp`);
    expect(text).toContain('2025-11-25 and 2026-07-28');
    const toolLines = text.split('\n').filter((line) => line.startsWith('- `'));
    expect(toolLines.map((line) => /^- `(\w+)`/.exec(line)?.[1])).toEqual(TOOLS.map((tool) => tool.name));
    for (const line of toolLines) expect(line).toMatch(/^- `\w+` \(GET \/api\/v1\/\S+; (free|1 token [^)]+)\): \S.*[.!?]$/);
  });
});
