import { REST_PREFIX, type ToolDefinition } from '@adintel/tool-catalogue';
import { getJson } from './agent';

/** Ids found in the seeded store, so every tool has something real to fetch. */
export interface SeedIds {
  readonly adId: string;
  readonly advertiserId: string;
  readonly webmasterId: string;
  readonly creativeId: string;
  readonly appId: string;
  readonly domain: string;
}

/** Arguments for one call of each tool, explicit about `limit` so both surfaces ask the same. */
export function argumentsFor(tool: ToolDefinition, ids: SeedIds): Record<string, unknown> {
  switch (tool.name) {
    case 'get_ad':
      return { id: ids.adId };
    case 'get_advertiser':
    case 'get_advertiser_activity':
      return { id: ids.advertiserId };
    case 'get_webmaster':
      return { id: ids.webmasterId };
    case 'list_webmaster_advertisers':
      return { id: ids.webmasterId, limit: 3 };
    case 'get_creative':
      return { id: ids.creativeId };
    case 'get_app':
      return { id: ids.appId };
    case 'get_domain':
      return { domain: ids.domain };
    case 'get_ads_breakdown':
      return { field: 'country', limit: 3 };
    case 'get_trends':
      return { dimension: 'advertisers/cards', limit: 3 };
    case 'get_usage':
    case 'get_catalog':
      return {};
    default:
      return { limit: 3 };
  }
}

/** The REST twin of a call: path parameters into the template, the rest into the query string. */
export function restPathFor(tool: ToolDefinition, args: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    if (!tool.http.pathParams.includes(key)) query.append(key, String(value));
  }
  const path = tool.http.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name])));
  return `${REST_PREFIX}${path}${query.size ? `?${query}` : ''}`;
}

/** Ids of real rows in the seeded store, read over REST (which charges the token that reads them). */
export async function findSeedIds(base: string, token: string): Promise<SeedIds> {
  const { body } = await getJson(base, token, '/api/v1/ads?limit=100');
  const ads = body['data'] as { id: string; advertiser_id: string; webmaster_id: string | null; creative_id: string; app_id: string | null; landing_domain: string }[];
  const apps = (await getJson(base, token, '/api/v1/apps?limit=1')).body['data'] as { id: string }[];
  const webmasters = (await getJson(base, token, '/api/v1/webmasters?limit=1')).body['data'] as { id: string }[];
  const [ad] = ads;
  const webmasterId = ads.find((each) => each.webmaster_id)?.webmaster_id ?? webmasters[0]?.id;
  const appId = ads.find((each) => each.app_id)?.app_id ?? apps[0]?.id;
  if (!ad || !webmasterId || !appId) throw new Error('the seeded store has no ad, webmaster or app to name');
  return { adId: ad.id, advertiserId: ad.advertiser_id, creativeId: ad.creative_id, domain: ad.landing_domain, webmasterId, appId };
}
