import { limitParam, MCP_SEARCH_ADS_DEFAULT_LIMIT, MeteringMessages, OVERVIEW, OVERVIEW_SECTIONS, QueryMessages } from '@adintel/contracts';
import { admissionOf, FREE, ONE_TOKEN, perRow } from './costs';
import { argsFromMessage, type ArgOverrides, type ObjectMessage } from './derive-args';
import { renderDescription, type ToolGuide } from './descriptions';
import { fieldsArg, FIELDS_ARG, selectableOutput, selectionOf } from './fields';
import type { CostRule, ToolDefinition, ToolView } from './tool-definition';

interface ToolSpec {
  name: string;
  title: string;
  /** The parts the description is rendered from (descriptions.ts). */
  guide: ToolGuide;
  path: string;
  cost: CostRule;
  /** The message that answers the tool: its request schema is the tool's argument schema. */
  message: ObjectMessage;
  /** Where a surface differs from the message (search_ads pages 20 on MCP). */
  overrides?: ArgOverrides;
  /** The MCP Apps view a host may show for the result. */
  view?: ToolView;
  /** List tools: the row field that always comes; the tool then takes `fields` (fields.ts). */
  rowKey?: string;
  /** It scans the ads (ToolDefinition.scan). */
  scan?: boolean;
}

const pathParamsOf = (path: string) => [...path.matchAll(/\{(?<name>\w+)\}/g)].flatMap((m) => m.groups?.['name'] ?? []);

const tool = (spec: ToolSpec, service: ToolDefinition['service'], callerScoped: boolean): ToolDefinition => {
  const selection = spec.rowKey === undefined ? undefined : selectionOf(spec.message.response, spec.rowKey);
  return {
    name: spec.name,
    title: spec.title,
    description: renderDescription(spec.guide, spec.cost),
    args: argsFromMessage(spec.message, {
      callerScoped,
      overrides: spec.overrides,
      ...(selection && { extra: { [FIELDS_ARG]: fieldsArg(selection) } }),
    }),
    output: selection ? selectableOutput(spec.message.response, selection) : spec.message.response,
    http: { path: spec.path, pathParams: pathParamsOf(spec.path) },
    cost: spec.cost,
    admission: admissionOf(spec.cost, service),
    scan: spec.scan ?? false,
    service,
    message: spec.message,
    callerScoped,
    ...(selection && { selection }),
    ...(spec.view && { view: spec.view }),
  };
};

const queryTool = (spec: ToolSpec) => tool(spec, 'query', false);
/** Metering tools answer about the caller: the edge adds `caller_id`, so it is not an argument. */
const meteringTool = (spec: ToolSpec) => tool(spec, 'metering', true);

const PAGING = 'Pages with `cursor` (pass `pagination.next_cursor` back with the same other arguments).';
const FIELDS = '`fields` trims each row to what you need (the id always comes).';

export const TOOLS: readonly ToolDefinition[] = [
  queryTool({
    name: 'search_ads',
    title: 'Search ads',
    guide: {
      does:
        'Finds ads running on Facebook and TikTok by keyword (`q`: words in title, body or landing URL), country, platforms, ' +
        'AI category, status, destination type, advertiser, webmaster (affiliate), app, creative, landing domain (subdomains ' +
        'included: use `landing_domain`, not `q`, for domains) and date range; sorts by date, days_active, ' +
        'activity_days_amount, most_popular or impressions (impressions needs q, advertiser_id, webmaster_id or landing_domain).',
      when: 'you need the ads themselves: texts, landing URLs, dates, the longest-running or most popular ones.',
      instead:
        'counting or shares (count_ads is free; get_ads_breakdown gives counts by a field, or an overview of every field in one call); ' +
        'rankings over time (get_trends).',
      returns:
        `a page of ads (\`data\`) with \`pagination\` (next_cursor, has_more, total, total_estimated, watermark). ${FIELDS} ` +
        'To keep watch (an advertiser, an affiliate, a domain, a niche): keep `pagination.watermark`, later call again with the ' +
        'same filters and `changed_since=<watermark>`: only the ads that changed since come, in change order, each with ' +
        '`change` (new, ended, resumed, changed: countries, languages, categories, landing, texts or media) and `changed_at`; ' +
        'dates, counters and impressions moving alone are no change. Page with `cursor`, then keep the last page\'s watermark. ' +
        'A watermark older than the retention window (30 days by default) or from reloaded data is answered 410: ' +
        're-baseline with a plain search.',
      costNote: `An empty page is free, so a watch that finds nothing costs nothing. Default 20 ads per page on MCP, max 100: ask for few rows. ${PAGING}`,
    },
    overrides: { mcp: { limit: limitParam(MCP_SEARCH_ADS_DEFAULT_LIMIT) } },
    path: '/ads',
    cost: perRow('ad'),
    message: QueryMessages.searchAds,
    view: 'ad-gallery',
    rowKey: 'id',
  }),
  queryTool({
    name: 'get_ad',
    title: 'Get one ad',
    guide: {
      does: 'One ad by id with its media and the advertiser and webmaster behind it.',
      when: 'you hold an ad id (from search_ads, trends evidence or a creative) and need its detail.',
      instead: 'finding ads (search_ads).',
      returns: 'the ad, `media`, and `advertiser` and `webmaster` summaries.',
    },
    path: '/ads/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getAd,
  }),
  queryTool({
    name: 'count_ads',
    title: 'Count ads',
    guide: {
      does:
        'How many ads match the search_ads filters (with `changed_since`: how many changed since that watermark), and what the ' +
        'next search_ads page would cost at `limit`.',
      when: 'before paying for rows, or when the number is the answer ("how many active e-commerce ads on TikTok").',
      instead: 'counts split by a field (get_ads_breakdown).',
      returns: '`total` (exact up to 10,000; above it `total_estimated` is true) and `cost_of_next_page`.',
    },
    path: '/ads/count',
    cost: FREE,
    message: QueryMessages.countAds,
  }),
  queryTool({
    name: 'get_ads_breakdown',
    title: 'Break ads down by a field',
    guide: {
      does:
        'Counts the ads matching the search_ads filters by `field`: country, platform, category, language, creative_format, ' +
        'landing_domain, destination_type (where ads send people), status, advertiser or webmaster. `field=overview` gives ' +
        'the shape of a market in one call: the total and the top rows of status, country, category, platform, ' +
        'destination_type, landing_domain, advertiser and webmaster, `limit` rows shared among them.',
      when: 'the question is "how many by what" or "what does this market look like".',
      instead: 'the ads themselves (search_ads); change against an earlier window (get_trends); one number (count_ads, free).',
      returns:
        '`total` with `total_estimated`, and `data` (key, label, ads, share; largest first), or for the overview `sections`, ' +
        'each with `complete` (false: truncated to its top rows).',
      costNote: 'Ask for the rows you will read: `limit` is the most you pay (the overview: one row per section at least).',
    },
    path: '/ads/breakdown/{field}',
    cost: perRow('bucket', { arg: 'field', value: OVERVIEW, count: OVERVIEW_SECTIONS.length }),
    message: QueryMessages.adsBreakdown,
    scan: true,
  }),
  queryTool({
    name: 'get_trends',
    title: 'Ranked trends',
    guide: {
      does:
        'Ranked rows for one dimension over a window (default the last 30 days): geo (countries), advertisers/cards, ' +
        'webmasters, apps, timeline (one row per day) or scaling-creatives (creatives whose ad count grew most). ' +
        'Filters: country, platform, ai_category, date_from/date_to.',
      when: 'you need leaders or movers: top advertisers in a vertical and country, what is scaling, new ads per day.',
      instead: 'counts by an arbitrary field or destination (get_ads_breakdown); the ads behind a row (search_ads with its `evidence`).',
      returns: 'rows with rank, key, label, ads in the window, share, change against the previous window and `evidence` (search_ads arguments).',
    },
    path: '/analytics/trends/{dimension}',
    cost: perRow('row'),
    message: QueryMessages.trends,
    scan: true,
    view: 'trend-chart',
  }),
  queryTool({
    name: 'search_advertisers',
    title: 'Find advertisers by name',
    guide: {
      does: 'Advertisers whose name starts with `q` or has a word starting with it, most active first.',
      when: 'turning a brand name into an advertiser_id for search_ads or get_advertiser.',
      instead: 'ranking advertisers by volume in a market (get_trends advertisers/cards, or get_ads_breakdown field=advertiser).',
      returns: `matches (id, name, ads_total, active_ads, platforms). ${FIELDS}`,
    },
    path: '/advertisers/autocomplete',
    cost: FREE,
    message: QueryMessages.searchAdvertisers,
    rowKey: 'id',
  }),
  queryTool({
    name: 'get_advertiser',
    title: 'Get one advertiser',
    guide: {
      does: 'The merged record of one advertiser across Facebook and TikTok.',
      when: 'you hold an advertiser_id and need its profile: accounts, ad and creative counts, countries, categories, domains.',
      instead: 'its ads (search_ads with advertiser_id); its activity per day (get_advertiser_activity).',
      returns: 'the advertiser record with first and last seen dates.',
    },
    path: '/advertisers/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getAdvertiser,
    view: 'advertiser-card',
  }),
  queryTool({
    name: 'get_advertiser_activity',
    title: 'Advertiser activity per day',
    guide: {
      does: 'New and active ads per day for one advertiser between date_from and date_to (default the last 30 days).',
      when: 'you need when an advertiser launched or paused campaigns.',
      instead: 'a whole market per day (get_trends timeline).',
      returns: 'one row per day: date, new_ads, active_ads.',
    },
    path: '/advertisers/{id}/activity',
    cost: ONE_TOKEN,
    message: QueryMessages.advertiserActivity,
  }),
  queryTool({
    name: 'search_webmasters',
    title: 'Search webmasters (affiliates)',
    guide: {
      does: 'Affiliate networks and webmasters matching `q` (all when omitted), largest first.',
      when: 'finding a webmaster_id, or comparing affiliates by volume and home country.',
      instead: 'one webmaster in full (get_webmaster); its advertisers (list_webmaster_advertisers).',
      returns: `rows with ad volume per country, dominant country and relevance (share of ads in the dominant country). ${FIELDS}`,
      costNote: PAGING,
    },
    path: '/webmasters',
    cost: perRow('webmaster'),
    message: QueryMessages.searchWebmasters,
    rowKey: 'id',
  }),
  queryTool({
    name: 'get_webmaster',
    title: 'Get one webmaster',
    guide: {
      does: 'One webmaster (affiliate) with its geography, verticals and landing domains.',
      when: 'you hold a webmaster_id and need everything it runs at a glance.',
      instead: 'its advertisers (list_webmaster_advertisers); its ads (search_ads with webmaster_id).',
      returns: 'the webmaster record: countries, categories and top landing domains with counts.',
    },
    path: '/webmasters/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getWebmaster,
  }),
  queryTool({
    name: 'list_webmaster_advertisers',
    title: 'Advertisers of a webmaster',
    guide: {
      does: 'Advertisers a webmaster runs ads for, most ads first.',
      when: 'you need who an affiliate works for.',
      instead: 'the webmaster profile (get_webmaster); counts by advertiser under other filters (get_ads_breakdown field=advertiser).',
      returns: `advertiser rows (id, name, ads_total, active_ads, platforms). ${FIELDS}`,
      costNote: PAGING,
    },
    path: '/webmasters/{id}/advertisers',
    cost: perRow('advertiser'),
    message: QueryMessages.webmasterAdvertisers,
    rowKey: 'id',
  }),
  queryTool({
    name: 'search_creatives',
    title: 'Search unique creatives',
    guide: {
      does: 'Unique (deduplicated) creatives whose text matches `q`, most used first.',
      when: 'you need which creatives are reused most, across advertisers.',
      instead: 'creatives that are growing (get_trends scaling-creatives); the ads using one (search_ads with creative_id).',
      returns: `creative rows with how many ads and advertisers use each. ${FIELDS}`,
      costNote: PAGING,
    },
    path: '/creo',
    cost: perRow('creative'),
    message: QueryMessages.searchCreatives,
    rowKey: 'id',
  }),
  queryTool({
    name: 'get_creative',
    title: 'Get one creative',
    guide: {
      does: 'One unique creative: its media, reach and sample ads.',
      when: 'you hold a creative_id and need its reach (ads, advertisers, countries, platforms).',
      instead: 'every ad using it (search_ads with creative_id).',
      returns: 'the creative record with media and sample ad ids.',
    },
    path: '/creo/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getCreative,
  }),
  queryTool({
    name: 'search_domains',
    title: 'Search landing domains',
    guide: {
      does: 'Registrable landing domains containing `q`, most ads first.',
      when: 'finding domains by name.',
      instead: 'the top domains of a market (get_ads_breakdown field=landing_domain); one domain in full (get_domain).',
      returns: `domain rows with ad and advertiser counts. ${FIELDS.replace('the id', 'the domain')}`,
      costNote: PAGING,
    },
    path: '/domains',
    cost: perRow('domain'),
    message: QueryMessages.searchDomains,
    rowKey: 'domain',
  }),
  queryTool({
    name: 'get_domain',
    title: 'Get one landing domain',
    guide: {
      does: 'One landing domain and everything below it.',
      when: 'you hold a domain and need its ads, advertisers, countries and subdomains.',
      instead: 'its ads (search_ads with landing_domain).',
      returns: 'the domain record with subdomains, countries and top advertisers.',
    },
    path: '/domains/{domain}',
    cost: ONE_TOKEN,
    message: QueryMessages.getDomain,
  }),
  queryTool({
    name: 'search_apps',
    title: 'Search promoted apps',
    guide: {
      does: 'Mobile apps promoted by ads, matching `q` in name or bundle id (all when omitted), most ads first.',
      when: 'finding an app_id by name.',
      instead: 'the apps promoted most in a country or vertical (get_trends apps).',
      returns: `app rows: name, store, bundle id, ads and advertisers. ${FIELDS}`,
      costNote: PAGING,
    },
    path: '/apps',
    cost: perRow('app'),
    message: QueryMessages.searchApps,
    rowKey: 'id',
  }),
  queryTool({
    name: 'get_app',
    title: 'Get one app',
    guide: {
      does: 'One promoted app: store, bundle id, the advertisers promoting it and where.',
      when: 'you hold an app_id and need who promotes it.',
      instead: 'its ads (search_ads with app_id).',
      returns: 'the app record with its advertisers and countries.',
    },
    path: '/apps/{id}',
    cost: ONE_TOKEN,
    message: QueryMessages.getApp,
  }),
  meteringTool({
    name: 'get_usage',
    title: 'Token usage',
    guide: {
      does: 'Your plan, tokens used, reserved and remaining, the period, and which pool pays (your trial or your owner’s plan).',
      when: 'before a large call, or to report what is left.',
      instead: 'what each call cost (list_usage_events).',
      returns: 'plan, used, reserved, remaining, period and pool.',
      costNote: 'At any frequency.',
    },
    path: '/usage',
    cost: FREE,
    message: MeteringMessages.getUsage,
  }),
  meteringTool({
    name: 'list_usage_events',
    title: 'Usage ledger',
    guide: {
      does: 'Your charge ledger, newest first.',
      when: 'you need what each call cost.',
      instead: 'the balance (get_usage).',
      returns: 'events: tool, tokens charged and refunded, time.',
      costNote: PAGING,
    },
    path: '/usage/events',
    cost: FREE,
    message: MeteringMessages.listUsageEvents,
  }),
  queryTool({
    name: 'get_catalog',
    title: 'Allowed values and costs',
    guide: {
      does: 'Every allowed value for the other tools and what each tool costs.',
      when: 'first: to learn countries, categories, destination types, sorts and fields, and whether the data covers a country and platform.',
      instead: 'counts of ads under filters (count_ads).',
      returns:
        'countries, platforms, categories, languages, destination types, sorts, trend dimensions, breakdown fields, the dates ' +
        'covered, how fresh the data is (`data_as_of`: the newest sighting), `coverage` (ads and newest sighting per platform ' +
        'and country: a pair absent holds no ads) and tool costs.',
    },
    path: '/catalog',
    cost: FREE,
    message: QueryMessages.catalog,
  }),
];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
