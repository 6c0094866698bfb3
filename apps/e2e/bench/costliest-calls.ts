/**
 * The cost of the costliest call of each tool (docs/security.md, "The costliest call of each tool"): query-api's CPU
 * per call, the wall time and the tokens charged, each call made alone on an otherwise idle stack.
 *   node apps/e2e/bench/run.mjs apps/e2e/bench/costliest-calls.ts --ads=100000 [--data-dir=DIR] [--calls=5] [--only=TOOL]
 * A data dir keeps the seeded store for the next run (the seed skips a store that holds ads).
 */
import { parseArgs } from 'node:util';
import { TOOLS } from '@adintel/tool-catalogue';
import { newAgentToken } from '../test/agent';
import { startStack } from '../test/stack';
import { appCpuMs } from './process-stats';

const { values } = parseArgs({
  options: { ads: { type: 'string', default: '100000' }, 'data-dir': { type: 'string' }, calls: { type: 'string', default: '5' }, only: { type: 'string' } },
});
const ads = Number(values.ads);
const calls = Number(values.calls);

/** The arguments that make each tool do the most work: no narrowing filter, the largest limit, the widest window. */
const COSTLIEST: Record<string, (ids: Ids) => string> = {
  search_ads: () => '/ads?limit=100&sort_by=most_popular',
  get_ad: (ids) => `/ads/${ids.ad}`,
  count_ads: () => '/ads/count',
  get_ads_breakdown: () => '/ads/breakdown/overview?limit=1',
  get_trends: () => '/analytics/trends/advertisers/cards?limit=100',
  search_advertisers: () => '/advertisers/autocomplete?q=a&limit=100',
  get_advertiser: (ids) => `/advertisers/${ids.advertiser}`,
  get_advertiser_activity: (ids) => `/advertisers/${ids.advertiser}/activity`,
  search_webmasters: () => '/webmasters?limit=100',
  get_webmaster: (ids) => `/webmasters/${ids.webmaster}`,
  list_webmaster_advertisers: (ids) => `/webmasters/${ids.webmaster}/advertisers?limit=100`,
  search_creatives: () => '/creo?limit=100',
  get_creative: (ids) => `/creo/${ids.creative}`,
  search_domains: () => '/domains?q=a&limit=100',
  get_domain: (ids) => `/domains/${ids.domain}`,
  search_apps: () => '/apps?q=a&limit=100',
  get_app: (ids) => `/apps/${ids.app}`,
  get_usage: () => '/usage',
  list_usage_events: () => '/usage/events?limit=100',
  get_catalog: () => '/catalog',
};
/** Other heavy variants worth a row of their own. */
const EXTRA: Record<string, string> = {
  'get_ads_breakdown (landing_domain, 100)': '/ads/breakdown/landing_domain?limit=100',
  'get_trends (scaling-creatives, 100)': '/analytics/trends/scaling-creatives?limit=100',
};

interface Ids {
  ad: string;
  advertiser: string;
  webmaster: string;
  creative: string;
  domain: string;
  app: string;
}

async function main() {
  const stack = await startStack({
    ads,
    queryWorkers: 2,
    trialAllowance: 10_000_000,
    logLevel: 'warn',
    rateLimit: { perMinute: 100_000, burst: 10_000 },
    ...(values['data-dir'] ? { queryDataDir: values['data-dir'] } : {}),
  });
  try {
    const { token } = await newAgentToken(stack.baseUrl);
    const get = async (path: string) => {
      const res = await fetch(`${stack.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as Record<string, unknown>;
      return { status: res.status, charged: res.headers.get('x-tokens-charged') ?? '0', body };
    };
    const sample = (await get('/ads?limit=100&sort_by=most_popular')).body['data'] as Record<string, unknown>[];
    const withApp = sample.find((ad) => typeof ad['app_id'] === 'string') ?? sample[0] ?? {};
    const first = sample[0] ?? {};
    const ids: Ids = {
      ad: String(first['id']),
      advertiser: String(first['advertiser_id']),
      webmaster: String(first['webmaster_id']),
      creative: String(first['creative_id']),
      domain: encodeURIComponent(String(first['landing_domain'])),
      app: String(withApp['app_id']),
    };
    const rows = [
      ...TOOLS.map((tool) => [tool.name, COSTLIEST[tool.name]?.(ids)] as const),
      ...Object.entries(EXTRA),
    ]
      .filter((row): row is readonly [string, string] => row[1] !== undefined)
      .filter(([name]) => values.only === undefined || name.startsWith(values.only));
    const pid = stack.apps['query-api'].pid;
    process.stdout.write(`| tool | costliest call | query-api CPU per call | wall per call | tokens | status |\n|---|---|---|---|---|---|\n`);
    for (const [name, path] of rows) {
      await get(path); // warm: caches and compiled statements, as a repeated call finds them
      const cpu = appCpuMs(pid);
      const started = performance.now();
      let last = { status: 0, charged: '0' };
      for (let i = 0; i < calls; i++) last = await get(path);
      const wall = (performance.now() - started) / calls;
      const cpuPerCall = (appCpuMs(pid) - cpu) / calls;
      process.stdout.write(`| ${name} | \`${path}\` | ${cpuPerCall.toFixed(0)} ms | ${wall.toFixed(0)} ms | ${last.charged} | ${last.status} |\n`);
    }
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
