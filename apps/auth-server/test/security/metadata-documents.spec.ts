import { authServerFor, counterValue } from './support';

/**
 * Issue 23, low item: metadata documents fetched for anonymous requests were not rate limited. A request that names
 * its client by URL may make the server fetch it: such requests are limited per client network per minute.
 */
describe('requests naming a client by metadata document URL', () => {
  const server = authServerFor({ METADATA_DOCUMENT_REQUESTS_PER_MINUTE: '3', LOG_LEVEL: 'info' });
  const authorize = (clientId: string, from: string) =>
    fetch(`${server().url}/oauth2/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', scope: 'mcp:read' })}`, {
      headers: { 'x-forwarded-for': from },
      redirect: 'manual',
    });

  it('are limited per network per minute (429 + Retry-After); other networks and ordinary client ids are not', async () => {
    // A fixed one-minute window: start well inside one, so the four requests share it.
    const intoMinute = (Date.now() / 1000) % 60;
    if (intoMinute > 45) await new Promise((resolve) => setTimeout(resolve, (61 - intoMinute) * 1000));
    const before = await counterValue(server().url, 'adintel_limit_refusals_total', 'limit="metadata_documents_per_network"');
    const answers: Response[] = [];
    for (let i = 0; i < 4; i++) answers.push(await authorize(`https://cimd-${i}.invalid/client.json`, `198.51.100.${i + 1}`));
    expect(answers.slice(0, 3).map((res) => res.status)).not.toContain(429);
    expect(answers[3]?.status).toBe(429);
    expect(Number(answers[3]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await counterValue(server().url, 'adintel_limit_refusals_total', 'limit="metadata_documents_per_network"')).toBe(before + 1);
    expect((await authorize('https://cimd-x.invalid/client.json', '198.51.101.1')).status).not.toBe(429);
    expect((await authorize('agt_not_a_url', '198.51.100.9')).status).not.toBe(429);
  }, 30_000);
});
