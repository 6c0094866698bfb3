import autocannon from 'autocannon';

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** GET these paths of `url` in turn instead of `url` itself (each connection goes round them). */
  readonly paths?: readonly string[];
}

export interface Drive {
  readonly requestsPerSecond: number;
  /** Answers received (2xx and others): what CPU time per call divides by. */
  readonly completed: number;
  /** Answers other than 2xx, MCP tool errors, and connection errors: a case with any is not a measurement. */
  readonly errors: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** Bytes of the answers a second. */
  readonly bytesPerSecond: number;
}

/**
 * Checks the target answers a successful call (an MCP tool error comes back as 200 with isError), then drives it
 * for `seconds` with `connections` keep-alive connections. Latency percentiles come from every response time
 * (autocannon's own summary has no p95).
 */
export async function drive(target: Target, connections: number, seconds: number): Promise<Drive> {
  await checkAnswer(target);
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method ?? 'GET',
        headers: target.headers ?? {},
        ...(target.body === undefined ? {} : { body: target.body }),
        ...(target.paths ? { requests: target.paths.map((path) => ({ method: 'GET' as const, path })) } : {}),
        connections,
        duration: seconds,
      },
      (error, finished) => (error ? fail(error) : done(finished)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0;
  return {
    requestsPerSecond: result.requests.total / result.duration,
    completed: result.requests.total,
    errors: result.non2xx + result.errors,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    bytesPerSecond: result.throughput.average,
  };
}

async function checkAnswer(target: Target): Promise<void> {
  const url = target.paths?.[0] === undefined ? target.url : new URL(target.paths[0], target.url).href;
  const res = await fetch(url, { method: target.method ?? 'GET', headers: target.headers ?? {}, body: target.body ?? null });
  const text = await res.text();
  if (!res.ok || text.includes('"isError":true')) throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 500)}`);
}
