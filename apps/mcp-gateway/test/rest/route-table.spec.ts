import { TOOLS } from '@adintel/tool-catalogue';
import { RouteTable } from '../../src/rest/route-table';

describe('RouteTable (the REST twins compiled from the catalogue)', () => {
  const routes = new RouteTable(TOOLS);
  const resolve = (path: string) => {
    const match = routes.match(path);
    return match && { tool: match.tool.name, params: match.pathParams };
  };

  it('routes every tool path template to its tool', () => {
    for (const tool of TOOLS) {
      const path = tool.http.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'dimension' ? 'geo' : name === 'field' ? 'country' : 'x1'));
      expect(resolve(path)?.tool).toBe(tool.name);
    }
  });

  it('prefers literal segments over parameters, whatever the catalogue order', () => {
    expect(resolve('/ads/count')).toEqual({ tool: 'count_ads', params: {} });
    expect(resolve('/ads/breakdown/country')).toEqual({ tool: 'get_ads_breakdown', params: { field: 'country' } });
    expect(resolve('/ads/123')).toEqual({ tool: 'get_ad', params: { id: '123' } });
    expect(resolve('/advertisers/autocomplete')).toEqual({ tool: 'search_advertisers', params: {} });
    expect(resolve('/advertisers/a1/activity')).toEqual({ tool: 'get_advertiser_activity', params: { id: 'a1' } });
    expect(resolve('/usage/events')).toEqual({ tool: 'list_usage_events', params: {} });
  });

  it('accepts the trends dimension advertisers/cards literally and %2F-encoded', () => {
    const expected = { tool: 'get_trends', params: { dimension: 'advertisers/cards' } };
    expect(resolve('/analytics/trends/advertisers/cards')).toEqual(expected);
    expect(resolve('/analytics/trends/advertisers%2Fcards')).toEqual(expected);
    expect(resolve('/analytics/trends/advertisers%2fcards')).toEqual(expected);
    expect(resolve('/analytics/trends/scaling-creatives')).toEqual({ tool: 'get_trends', params: { dimension: 'scaling-creatives' } });
  });

  it('decodes path parameters and ignores empty segments', () => {
    expect(resolve('/domains/shop.example.com')).toEqual({ tool: 'get_domain', params: { domain: 'shop.example.com' } });
    expect(resolve('/ads/a%20b')).toEqual({ tool: 'get_ad', params: { id: 'a b' } });
    expect(resolve('/ads/')).toEqual({ tool: 'search_ads', params: {} });
  });

  it('finds nothing for unknown paths, extra segments or broken encoding', () => {
    for (const path of ['/', '/nope', '/ads/1/2', '/webmasters/1/advertisers/2', '/ads/%E0%A4%A', '/analytics/trends']) {
      expect(resolve(path)).toBeUndefined();
    }
  });
});
