import { limitParam, MCP_SEARCH_ADS_DEFAULT_LIMIT, MeteringMessages, QueryMessages } from '@adintel/contracts';
import { FREE, ONE_TOKEN, perRow } from './costs';
import { argsFromMessage, type ArgOverrides, type ObjectMessage } from './derive-args';
import type { CostRule, ToolDefinition, ToolView } from './tool-definition';

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  path: string;
  cost: CostRule;
  /** The message that answers the tool: its request schema is the tool's argument schema. */
  message: ObjectMessage;
  /** Where a surface differs from the message (search_ads pages 20 on MCP). */
  overrides?: ArgOverrides;
  /** The MCP Apps view a host may show for the result. */
  view?: ToolView;
}

const pathParamsOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

const tool = (spec: ToolSpec, service: ToolDefinition['service'], callerScoped: boolean): ToolDefinition => ({
  name: spec.name,
  title: spec.title,
  description: spec.description,
  args: argsFromMessage(spec.message, { callerScoped, overrides: spec.overrides }),
  output: spec.message.response,
  http: { path: spec.path, pathParams: pathParamsOf(spec.path) },
  cost: spec.cost,
  service,
  message: spec.message,
  callerScoped,
  ...(spec.view && { view: spec.view }),
});

const queryTool = (spec: ToolSpec) => tool(spec, 'query', false);
/** Metering tools answer about the caller: the edge adds `caller_id`, so it is not an argument. */
const meteringTool = (spec: ToolSpec) => tool(spec, 'metering', true);

const PAGING = 'Pages with `cursor`: pass `pagination.next_cursor` from the previous result, with the same other arguments.';

export const TOOLS: readonly ToolDefinition[] = [
  queryTool({
    name: 'search_ads',
    title: 'Search ads',
    description:
      'Find ads running on Facebook and TikTok by keyword (`q`: words in title, body or landing URL), country, platforms, ' +
      'AI category, status, advertiser, webmaster (affiliate), app, creative, landing domain (subdomains included: use ' +
      '`landing_domain`, not `q`, for domains) and date range. Sort by date, days_active, activity_days_amount, ' +
      'most_popular or impressions (impressions needs q, advertiser_id, webmaster_id or landing_domain). ' +
      `Costs 1 token per ad returned; an empty page is free. Default 20 ads per page on MCP, max 100. ${PAGING} ` +
      'Use count_ads first (free) to size a query.',
    overrides: { mcp: { limit: limitParam(MCP_SEARCH_ADS_DEFAULT_LIMIT) } },
    path: '/ads',
    cost: perRow('ad'),
    message: QueryMessages.searchAds,
    view: 'ad-gallery',
  }),
  queryTool({
    name: 'get_ad',
    title: 'Get one ad',
    description: 'One ad by id with its media and the advertiser and webmaster behind it. Costs 1 token.',
    path: '/ads/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getAd,
  }),
  queryTool({
    name: 'count_ads',
    title: 'Count ads',
    description:
      'How many ads match the search_ads filters, and what the next search_ads page would cost at `limit`. Free: use it ' +
      'to check a query before paying for rows. `total` is exact up to 10,000; above that `total_estimated` is true.',
    path: '/ads/count',
    cost: FREE,
    message: QueryMessages.countAds,
  }),
  queryTool({
    name: 'get_ads_breakdown',
    title: 'Break ads down by a field',
    description:
      'Counts of the ads matching the search_ads filters, grouped by `field`: country, platform, category, language, ' +
      'creative_format, landing_domain or status. Largest buckets first, at most `limit`. Costs 1 token per bucket.',
    path: '/ads/breakdown/{field}',
    cost: perRow('bucket'),
    message: QueryMessages.adsBreakdown,
  }),
  queryTool({
    name: 'get_trends',
    title: 'Ranked trends',
    description:
      'Ranked rows for one dimension: geo (countries), advertisers/cards (advertiser cards), webmasters, apps, timeline ' +
      '(one row per day, by date) or scaling-creatives (creatives whose ad count grew most). Each row has ads in the ' +
      'window, share, change against the previous window of equal length, and `evidence`: search_ads arguments that ' +
      'list the ads behind it. Filters: country, platform, ai_category, date_from/date_to (default the last 30 days). ' +
      'Costs 1 token per row.',
    path: '/analytics/trends/{dimension}',
    cost: perRow('row'),
    message: QueryMessages.trends,
    view: 'trend-chart',
  }),
  queryTool({
    name: 'search_advertisers',
    title: 'Find advertisers by name',
    description:
      'Advertisers whose name starts with `q` or has a word starting with it, most active first. Free: use it to turn a ' +
      'brand name into an advertiser_id for search_ads or get_advertiser.',
    path: '/advertisers/autocomplete',
    cost: FREE,
    message: QueryMessages.searchAdvertisers,
  }),
  queryTool({
    name: 'get_advertiser',
    title: 'Get one advertiser',
    description:
      'The merged record of one advertiser across Facebook and TikTok: accounts, ad and creative counts, countries, ' +
      'categories, landing domains, first and last seen. Costs 1 token.',
    path: '/advertisers/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getAdvertiser,
    view: 'advertiser-card',
  }),
  queryTool({
    name: 'get_advertiser_activity',
    title: 'Advertiser activity per day',
    description:
      'New and active ads per day for one advertiser between date_from and date_to (default the last 30 days). Costs 1 token.',
    path: '/advertisers/{id}/activity',
    cost: ONE_TOKEN,
    message: QueryMessages.advertiserActivity,
  }),
  queryTool({
    name: 'search_webmasters',
    title: 'Search webmasters (affiliates)',
    description:
      'Affiliate networks and webmasters matching `q` (all when omitted), with ad volume per country, dominant country ' +
      `and relevance (share of ads in the dominant country). Costs 1 token per webmaster returned. ${PAGING}`,
    path: '/webmasters',
    cost: perRow('webmaster'),
    message: QueryMessages.searchWebmasters,
  }),
  queryTool({
    name: 'get_webmaster',
    title: 'Get one webmaster',
    description: 'One webmaster (affiliate) with its geography, verticals and landing domains. Costs 1 token.',
    path: '/webmasters/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getWebmaster,
  }),
  queryTool({
    name: 'list_webmaster_advertisers',
    title: 'Advertisers of a webmaster',
    description: `Advertisers a webmaster runs ads for, most ads first. Costs 1 token per advertiser returned. ${PAGING}`,
    path: '/webmasters/{id}/advertisers',
    cost: perRow('advertiser'),
    message: QueryMessages.webmasterAdvertisers,
  }),
  queryTool({
    name: 'search_creatives',
    title: 'Search unique creatives',
    description:
      'Unique (deduplicated) creatives whose text matches `q`, with how many ads and advertisers use each, most used ' +
      `first. Costs 1 token per creative returned. ${PAGING}`,
    path: '/creo',
    cost: perRow('creative'),
    message: QueryMessages.searchCreatives,
  }),
  queryTool({
    name: 'get_creative',
    title: 'Get one creative',
    description: 'One unique creative: its media, reach (ads, advertisers, countries, platforms) and sample ads. Costs 1 token.',
    path: '/creo/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getCreative,
  }),
  queryTool({
    name: 'search_domains',
    title: 'Search landing domains',
    description: `Registrable landing domains containing \`q\`, with ad and advertiser counts, most ads first. Costs 1 token per domain returned. ${PAGING}`,
    path: '/domains',
    cost: perRow('domain'),
    message: QueryMessages.searchDomains,
  }),
  queryTool({
    name: 'get_domain',
    title: 'Get one landing domain',
    description:
      'One landing domain and everything below it: ads, advertisers, countries and subdomains. Costs 1 token.',
    path: '/domains/{domain}',
    cost: ONE_TOKEN,
    message: QueryMessages.getDomain,
  }),
  queryTool({
    name: 'search_apps',
    title: 'Search promoted apps',
    description: `Mobile apps promoted by ads, matching \`q\` in name or bundle id, most ads first. Costs 1 token per app returned. ${PAGING}`,
    path: '/apps',
    cost: perRow('app'),
    message: QueryMessages.searchApps,
  }),
  queryTool({
    name: 'get_app',
    title: 'Get one app',
    description: 'One promoted app: store, bundle id, the advertisers promoting it and where. Costs 1 token.',
    path: '/apps/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getApp,
  }),
  meteringTool({
    name: 'get_usage',
    title: 'Token usage',
    description:
      'Your plan, tokens used, reserved and remaining, the period, and which pool pays (your own trial or your owner’s plan). ' +
      'Free at any frequency.',
    path: '/usage',
    cost: FREE,
    message: MeteringMessages.getUsage,
  }),
  meteringTool({
    name: 'list_usage_events',
    title: 'Usage ledger',
    description: `Your charge ledger, newest first: tool, tokens charged and refunded, time. Free. ${PAGING}`,
    path: '/usage/events',
    cost: FREE,
    message: MeteringMessages.listUsageEvents,
  }),
  queryTool({
    name: 'get_catalog',
    title: 'Allowed values and costs',
    description:
      'Every allowed value for the other tools (countries, platforms, categories, languages, sorts, trend dimensions, ' +
      'breakdown fields), the dates covered, how fresh the data is (data_as_of: the newest sighting), and what each tool ' +
      'costs. Free: call it first.',
    path: '/catalog',
    cost: FREE,
    message: QueryMessages.catalog,
  }),
];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
