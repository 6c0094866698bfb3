import {
  AD_SORTS,
  MeteringMessages,
  QueryMessages,
  TREND_DIMENSIONS,
} from '@adintel/contracts';
import { actualCost, findTool, inputJsonSchema, outputJsonSchema, parseHttpArgs, parseToolArgs, TOOLS, worstCaseCost } from '../src/index';

const tool = (name: string) => {
  const found = findTool(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('the catalogue', () => {
  it('has the 20 tools, each once, with its HTTP twin', () => {
    expect(TOOLS.map((t) => [t.name, t.http.path])).toEqual([
      ['search_ads', '/ads'],
      ['get_ad', '/ads/{id}'],
      ['count_ads', '/ads/count'],
      ['get_ads_breakdown', '/ads/breakdown/{field}'],
      ['get_trends', '/analytics/trends/{dimension}'],
      ['search_advertisers', '/advertisers/autocomplete'],
      ['get_advertiser', '/advertisers/{id}'],
      ['get_advertiser_activity', '/advertisers/{id}/activity'],
      ['search_webmasters', '/webmasters'],
      ['get_webmaster', '/webmasters/{id}'],
      ['list_webmaster_advertisers', '/webmasters/{id}/advertisers'],
      ['search_creatives', '/creo'],
      ['get_creative', '/creo/{id}'],
      ['search_domains', '/domains'],
      ['get_domain', '/domains/{domain}'],
      ['search_apps', '/apps'],
      ['get_app', '/apps/{id}'],
      ['get_usage', '/usage'],
      ['list_usage_events', '/usage/events'],
      ['get_catalog', '/catalog'],
    ]);
    expect(new Set(TOOLS.map((t) => t.message.pattern)).size).toBe(20);
  });

  it('routes data tools to query-api and usage tools to metering', () => {
    const queryPatterns = Object.values(QueryMessages).map((m) => m.pattern);
    const meteringPatterns = Object.values(MeteringMessages).map((m) => m.pattern);
    for (const t of TOOLS) {
      const patterns = t.service === 'query' ? queryPatterns : meteringPatterns;
      expect(patterns).toContain(t.message.pattern);
    }
    expect(TOOLS.filter((t) => t.service === 'metering').map((t) => t.name)).toEqual(['get_usage', 'list_usage_events']);
  });

  it('declares every path parameter as a required argument', () => {
    for (const t of TOOLS) {
      const schema = inputJsonSchema(t, 'http') as { required?: string[] };
      for (const param of t.http.pathParams) expect(schema.required).toContain(param);
    }
  });

  it('gives every tool an object input schema that refuses unknown arguments, and an object output schema', () => {
    for (const t of TOOLS) {
      expect(inputJsonSchema(t, 'mcp')).toMatchObject({ type: 'object', additionalProperties: false });
      expect(outputJsonSchema(t)).toMatchObject({ type: 'object' });
      expect(t.description.length).toBeGreaterThan(40);
    }
  });
});

describe('search_ads', () => {
  const searchAds = tool('search_ads');

  it('takes exactly the contract parameters plus the date range, app and creative filters, similar_to and changed_since', () => {
    expect(Object.keys(searchAds.args('http').shape).sort()).toEqual(
      [
        'q', 'country', 'platforms', 'creative_categories', 'status_today', 'advertiser_id', 'webmaster_id',
        'landing_domain', 'sort_by', 'sort_order', 'limit', 'cursor', 'date_from', 'date_to', 'app_id', 'creative_id',
        'destination_type', 'fields', 'similar_to', 'changed_since',
      ].sort(),
    );
  });

  it('takes changed_since on search_ads and count_ads alike, never with similar_to', () => {
    const since = { changed_since: 'w1.abc' };
    expect(parseToolArgs(searchAds, 'mcp', since)).toMatchObject({ ok: true, args: since });
    expect(parseToolArgs(tool('count_ads'), 'http', since)).toMatchObject({ ok: true, args: since });
    expect(parseToolArgs(searchAds, 'mcp', { ...since, similar_to: 'ad_1' })).toMatchObject({ ok: false, errors: [{ field: 'changed_since' }] });
    expect(parseToolArgs(searchAds, 'mcp', { changed_since: '' })).toMatchObject({ ok: false, errors: [{ field: 'changed_since' }] });
  });

  it('defaults to 50 ads over HTTP and 20 over MCP, at most 100', () => {
    expect(parseToolArgs(searchAds, 'http', {})).toMatchObject({ ok: true, args: { limit: 50, sort_by: 'date', sort_order: 'desc' } });
    expect(parseToolArgs(searchAds, 'mcp', {})).toMatchObject({ ok: true, args: { limit: 20 } });
    expect(parseToolArgs(searchAds, 'mcp', { limit: 100 })).toMatchObject({ ok: true });
    expect(parseToolArgs(searchAds, 'mcp', { limit: 101 })).toMatchObject({ ok: false, errors: [{ field: 'limit' }] });
    expect(parseToolArgs(searchAds, 'mcp', { limit: 0 })).toMatchObject({ ok: false, errors: [{ field: 'limit' }] });
    expect(inputJsonSchema(searchAds, 'mcp')).toMatchObject({ properties: { limit: { default: 20, maximum: 100 } } });
    expect(inputJsonSchema(searchAds, 'http')).toMatchObject({ properties: { limit: { default: 50, maximum: 100 } } });
  });

  it('knows the five sorts, two orders and two statuses', () => {
    expect(AD_SORTS).toEqual(['date', 'days_active', 'activity_days_amount', 'most_popular', 'impressions']);
    expect(parseToolArgs(searchAds, 'http', { sort_by: 'clicks' })).toMatchObject({
      ok: false,
      errors: [{ field: 'sort_by', allowed: [...AD_SORTS] }],
    });
    expect(parseToolArgs(searchAds, 'http', { sort_order: 'up' })).toMatchObject({ ok: false, errors: [{ field: 'sort_order', allowed: ['asc', 'desc'] }] });
    expect(parseToolArgs(searchAds, 'http', { status_today: 'paused' })).toMatchObject({
      ok: false,
      errors: [{ field: 'status_today', allowed: ['active', 'inactive'] }],
    });
  });

  it('refuses sort_by=impressions without a narrowing filter, naming sort_by', () => {
    expect(parseToolArgs(searchAds, 'http', { sort_by: 'impressions', country: 'US' })).toMatchObject({
      ok: false,
      errors: [{ field: 'sort_by', message: expect.stringContaining('narrowing filter') }],
    });
    for (const filter of ['q', 'advertiser_id', 'webmaster_id', 'landing_domain']) {
      const value = filter === 'landing_domain' ? 'example.com' : 'x1';
      expect(parseToolArgs(searchAds, 'http', { sort_by: 'impressions', [filter]: value })).toMatchObject({ ok: true });
    }
  });

  it('accepts array parameters repeated or comma-separated over HTTP', () => {
    const repeated = parseHttpArgs(searchAds, {}, { platforms: ['facebook', 'tiktok'], creative_categories: 'gambling_and_betting' });
    const commas = parseHttpArgs(searchAds, {}, { platforms: 'facebook,tiktok', creative_categories: ['gambling_and_betting'] });
    expect(repeated).toEqual(commas);
    expect(repeated).toMatchObject({ ok: true, args: { platforms: ['facebook', 'tiktok'], creative_categories: ['gambling_and_betting'] } });
  });

  it('parses numbers from the query string and names the field it cannot', () => {
    expect(parseHttpArgs(searchAds, {}, { limit: '10' })).toMatchObject({ ok: true, args: { limit: 10 } });
    expect(parseHttpArgs(searchAds, {}, { limit: 'ten' })).toMatchObject({ ok: false, errors: [{ field: 'limit' }] });
    expect(parseHttpArgs(searchAds, {}, { limit: '2.5' })).toMatchObject({ ok: false, errors: [{ field: 'limit' }] });
    expect(parseHttpArgs(searchAds, {}, { country: ['US', 'DE'] })).toMatchObject({ ok: false, errors: [{ field: 'country' }] });
  });

  it('names unknown parameters and lists the allowed ones', () => {
    const parsed = parseHttpArgs(searchAds, {}, { contry: 'US' });
    expect(parsed).toMatchObject({ ok: false, errors: [{ field: 'contry', allowed: expect.arrayContaining(['country']) }] });
  });

  it('normalises country codes and domains, and checks their shape', () => {
    expect(parseToolArgs(searchAds, 'mcp', { country: 'us', landing_domain: 'Shop.Example.COM' })).toMatchObject({
      ok: true,
      args: { country: 'US', landing_domain: 'shop.example.com' },
    });
    expect(parseToolArgs(searchAds, 'mcp', { country: 'USA' })).toMatchObject({ ok: false, errors: [{ field: 'country' }] });
    expect(parseToolArgs(searchAds, 'mcp', { landing_domain: 'https://x.com/a' })).toMatchObject({ ok: false, errors: [{ field: 'landing_domain' }] });
  });

  it('checks dates are YYYY-MM-DD and in order', () => {
    expect(parseToolArgs(searchAds, 'mcp', { date_from: '2026-01-31', date_to: '2026-01-01' })).toMatchObject({
      ok: false,
      errors: [{ field: 'date_to' }],
    });
    expect(parseToolArgs(searchAds, 'mcp', { date_from: '31/01/2026' })).toMatchObject({ ok: false, errors: [{ field: 'date_from' }] });
  });

  it('costs 1 token per ad returned and reserves limit x 1', () => {
    expect(worstCaseCost(searchAds, { limit: 20 })).toBe(20);
    expect(actualCost(searchAds, { data: [{}, {}, {}] })).toBe(3);
    expect(actualCost(searchAds, { data: [] })).toBe(0);
  });
});

describe('get_trends', () => {
  const trends = tool('get_trends');

  it('takes the six dimensions and the contract filters, limit default 50', () => {
    expect(TREND_DIMENSIONS).toEqual(['geo', 'advertisers/cards', 'webmasters', 'apps', 'timeline', 'scaling-creatives']);
    expect(Object.keys(trends.args('http').shape).sort()).toEqual(
      ['dimension', 'country', 'platform', 'ai_category', 'date_from', 'date_to', 'limit'].sort(),
    );
    expect(parseHttpArgs(trends, { dimension: 'advertisers/cards' }, {})).toMatchObject({ ok: true, args: { limit: 50 } });
    expect(parseHttpArgs(trends, { dimension: 'brands' }, {})).toMatchObject({ ok: false, errors: [{ field: 'dimension' }] });
    expect(worstCaseCost(trends, { limit: 50 })).toBe(50);
  });
});

describe('the other searches', () => {
  it.each([
    ['search_advertisers', ['q', 'limit', 'fields']],
    ['search_webmasters', ['q', 'limit', 'cursor', 'similar_to', 'fields']],
    ['search_creatives', ['q', 'limit', 'cursor', 'similar_to', 'fields']],
  ])('%s takes %j with limit default 50', (name, params) => {
    const t = tool(name);
    expect(Object.keys(t.args('http').shape).sort()).toEqual([...params].sort());
    expect(parseToolArgs(t, 'http', {})).toMatchObject({ ok: true, args: { limit: 50 } });
    expect(parseToolArgs(t, 'mcp', {})).toMatchObject({ ok: true, args: { limit: 50 } });
  });

  it('requires the id of single fetches', () => {
    for (const name of ['get_ad', 'get_webmaster', 'get_advertiser', 'get_creative', 'get_app']) {
      expect(parseToolArgs(tool(name), 'mcp', {})).toMatchObject({ ok: false, errors: [{ field: 'id' }] });
    }
  });
});

describe('costs', () => {
  it('makes get_usage, the ledger, counts, catalog and advertiser search free', () => {
    for (const name of ['get_usage', 'list_usage_events', 'count_ads', 'get_catalog', 'search_advertisers']) {
      expect(tool(name).cost).toEqual({ kind: 'free' });
      expect(worstCaseCost(tool(name), { limit: 100 })).toBe(0);
    }
  });

  it('charges 1 token for single fetches, whatever they return', () => {
    for (const name of ['get_ad', 'get_advertiser', 'get_advertiser_activity', 'get_webmaster', 'get_creative', 'get_domain', 'get_app']) {
      expect(worstCaseCost(tool(name), {})).toBe(1);
      expect(actualCost(tool(name), { id: 'x' })).toBe(1);
    }
  });

});
