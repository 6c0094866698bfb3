import { channel } from 'node:diagnostics_channel';
import { Controller, Get, Module, NotFoundException, Param, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { register } from 'prom-client';
import { AppMetrics, MetricsModule, TRANSPORT_HANDLED_CHANNEL, TRANSPORT_SENT_CHANNEL } from '../src/metrics';

@Controller('items')
class ItemsController {
  @Get(':id')
  get(@Param('id') id: string) {
    if (id === 'missing') throw new NotFoundException();
    return { id };
  }
}

@Module({ imports: [MetricsModule], controllers: [ItemsController] })
class TestAppModule {}

/** The value of one sample in the Prometheus text, or 0 when the series does not exist yet. */
async function sample(text: string | Promise<string>, series: string): Promise<number> {
  const line = (await text).split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('metrics', () => {
  let app: INestApplication;
  let base: string;
  let metrics: AppMetrics;
  const scrape = async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [TestAppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    metrics = app.get(AppMetrics);
    app.use(metrics.httpMiddleware());
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());

  it('serves Node process metrics in Prometheus text format', async () => {
    const text = await scrape();
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    expect(text).toContain('# HELP adintel_tool_calls_total');
  });

  it('counts HTTP requests by route template and status, never by raw path', async () => {
    const ok = 'adintel_http_requests_total{method="GET",route="/items/:id",status="200"}';
    const missing = 'adintel_http_requests_total{method="GET",route="/items/:id",status="404"}';
    const before = await scrape();
    await fetch(`${base}/items/1`);
    await fetch(`${base}/items/2`);
    await fetch(`${base}/items/missing`);
    await fetch(`${base}/no/such/path`);
    const after = await scrape();
    expect((await sample(after, ok)) - (await sample(before, ok))).toBe(2);
    expect((await sample(after, missing)) - (await sample(before, missing))).toBe(1);
    expect(await sample(after, 'adintel_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(after).not.toContain('/items/1"');
    expect(after).toContain('adintel_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/items/:id",status="200"}');
  });

  it('counts and times transport messages published on the diagnostics channels', async () => {
    const handled = 'adintel_transport_messages_total{direction="handled",pattern="query.search_ads",outcome="ok"}';
    const sent = 'adintel_transport_messages_total{direction="sent",pattern="metering.reserve",outcome="timeout"}';
    const before = await scrape();
    channel(TRANSPORT_HANDLED_CHANNEL).publish({ pattern: 'query.search_ads', outcome: 'ok', durationMs: 3 });
    channel(TRANSPORT_HANDLED_CHANNEL).publish({ pattern: 'query.search_ads', outcome: 'ok', durationMs: 40 });
    channel(TRANSPORT_SENT_CHANNEL).publish({ pattern: 'metering.reserve', outcome: 'timeout', durationMs: 10_000 });
    channel(TRANSPORT_SENT_CHANNEL).publish({ pattern: 42, outcome: 'ok' }); // not a transport event: ignored
    const after = await scrape();
    expect((await sample(after, handled)) - (await sample(before, handled))).toBe(2);
    expect((await sample(after, sent)) - (await sample(before, sent))).toBe(1);
    const sum = 'adintel_transport_message_duration_seconds_sum{direction="handled",pattern="query.search_ads",outcome="ok"}';
    expect((await sample(after, sum)) - (await sample(before, sum))).toBeCloseTo(0.043, 6);
    expect(after).not.toContain('pattern="42"');
  });

  it('records tool calls under their final status, tokens by tool and plan, and store queries by engine', async () => {
    const tool = 'adintel_tool_calls_total{tool="search_ads",status="402"}';
    const before = await register.metrics();
    await expect(
      metrics.timeToolCall('search_ads', () => 402, () => Promise.reject(new Error('short balance'))),
    ).rejects.toThrow('short balance');
    await expect(metrics.timeToolCall('search_ads', () => 500, () => Promise.resolve('rows'))).resolves.toBe('rows');
    metrics.recordTokensCharged('search_ads', 'pro', 20);
    metrics.recordTokensCharged('search_ads', 'pro', 0);
    await metrics.timeStoreQuery('sqlite', 'searchAds', () => Promise.resolve([]));
    await expect(metrics.timeStoreQuery('elasticsearch', 'getAd', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    const after = await register.metrics();
    expect((await sample(after, tool)) - (await sample(before, tool))).toBe(1);
    const ok = 'adintel_tool_calls_total{tool="search_ads",status="200"}';
    expect((await sample(after, ok)) - (await sample(before, ok))).toBe(1);
    const tokens = 'adintel_tokens_charged_total{tool="search_ads",plan="pro"}';
    expect((await sample(after, tokens)) - (await sample(before, tokens))).toBe(20);
    const store = 'adintel_store_query_duration_seconds_count{engine="sqlite",operation="searchAds",outcome="ok"}';
    expect((await sample(after, store)) - (await sample(before, store))).toBe(1);
    const failed = 'adintel_store_query_duration_seconds_count{engine="elasticsearch",operation="getAd",outcome="error"}';
    expect((await sample(after, failed)) - (await sample(before, failed))).toBe(1);
  });
});
