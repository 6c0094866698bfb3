import { AdsPage, DESTINATION_TYPES, OVERVIEW_SECTIONS } from '@adintel/contracts';
import {
  actualCost,
  DESCRIPTION_PARTS,
  findTool,
  inputJsonSchema,
  outputJsonSchema,
  parseHttpArgs,
  parseToolArgs,
  projectRows,
  takeFields,
  TOOLS,
  worstCaseCost,
} from '../src';

const tool = (name: string) => {
  const found = findTool(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('tool descriptions that steer', () => {
  it.each(TOOLS.map((t) => [t.name, t] as const))('%s says what it does, when to use it, when not (and what instead), what comes back, what it costs', (name, t) => {
    const [does, ...parts] = t.description.split('\n');
    expect(does?.length).toBeGreaterThan(20);
    expect(parts.map((p) => p.slice(0, p.indexOf(':') + 1))).toEqual([...DESCRIPTION_PARTS]);
    for (const part of parts) expect(part.slice(part.indexOf(':') + 1).trim().length).toBeGreaterThan(5);
    const instead = parts.find((p) => p.startsWith('Not for:')) ?? '';
    const others = TOOLS.filter((o) => o.name !== name && instead.includes(o.name));
    expect(others.length).toBeGreaterThan(0);
  });
});

describe('fields on list tools', () => {
  const listTools = TOOLS.filter((t) => t.selection);

  it('is offered by every tool that lists rows, from the rows of its result', () => {
    expect(listTools.map((t) => t.name).sort()).toEqual(
      ['list_webmaster_advertisers', 'search_ads', 'search_advertisers', 'search_apps', 'search_creatives', 'search_domains', 'search_webmasters'],
    );
    expect(tool('search_ads').selection?.fields).toEqual(Object.keys(AdsPage.shape.data.element.shape));
    for (const t of listTools) {
      for (const surface of ['http', 'mcp'] as const) {
        const schema = inputJsonSchema(t, surface) as { properties: Record<string, { items?: { enum?: string[] } }> };
        expect(schema.properties['fields']?.items?.enum).toEqual(t.selection?.fields);
      }
      // Rows may be trimmed: the published output keeps only the key required.
      const output = outputJsonSchema(t) as { properties: { data: { items: { required?: string[] } } } };
      expect(output.properties.data.items.required).toEqual([t.selection?.key]);
    }
  });

  it('takes comma-separated names on REST, and names a bad one with the allowed values', () => {
    const searchAds = tool('search_ads');
    expect(parseHttpArgs(searchAds, {}, { fields: 'title,landing_url' })).toMatchObject({ ok: true, args: { fields: ['title', 'landing_url'] } });
    const bad = parseHttpArgs(searchAds, {}, { fields: 'title,clicks' });
    expect(bad).toMatchObject({ ok: false, errors: [{ field: 'fields.1', allowed: searchAds.selection?.fields }] });
    expect(parseToolArgs(searchAds, 'mcp', { fields: [] })).toMatchObject({ ok: false, errors: [{ field: 'fields' }] });
    expect(parseToolArgs(tool('get_ad'), 'mcp', { id: 'x', fields: ['title'] })).toMatchObject({ ok: false, errors: [{ field: 'fields' }] });
  });

  it('is taken off the service arguments, and trims rows to the key and the fields asked for', () => {
    const searchDomains = tool('search_domains');
    expect(takeFields({ q: 'bet', fields: ['ads_total'] })).toEqual({ args: { q: 'bet' }, fields: ['ads_total'] });
    expect(takeFields({ q: 'bet' })).toEqual({ args: { q: 'bet' }, fields: null });
    const result = { data: [{ domain: 'a.com', ads_total: 3, active_ads: 1, advertisers: 2 }], pagination: { has_more: false } };
    const selection = searchDomains.selection;
    if (!selection) throw new Error('search_domains takes fields');
    expect(projectRows(result, selection, ['advertisers'])).toEqual({
      data: [{ domain: 'a.com', advertisers: 2 }],
      pagination: { has_more: false },
    });
    expect(projectRows(result, selection, null)).toBe(result);
  });
});

describe('destination_type and the overview', () => {
  it('filters search_ads and count_ads on the closed list', () => {
    for (const name of ['search_ads', 'count_ads', 'get_ads_breakdown']) {
      const field = name === 'get_ads_breakdown' ? { field: 'overview' } : {};
      expect(parseToolArgs(tool(name), 'http', { ...field, destination_type: 'messenger' })).toMatchObject({ ok: true });
      expect(parseToolArgs(tool(name), 'http', { ...field, destination_type: 'telegram' })).toMatchObject({
        ok: false,
        errors: [{ field: 'destination_type', allowed: [...DESTINATION_TYPES] }],
      });
    }
  });

  it('charges an overview 1 token per row of every section, never above its limit', () => {
    const breakdown = tool('get_ads_breakdown');
    const bucket = { key: 'k', label: 'k', ads: 1, share: 0.1 };
    const overview = {
      field: 'overview',
      total: 10,
      total_estimated: false,
      data: [],
      sections: [
        { field: 'status', complete: true, data: [bucket, bucket] },
        { field: 'country', complete: false, data: [bucket] },
      ],
    };
    expect(actualCost(breakdown, overview)).toBe(3);
    expect(worstCaseCost(breakdown, { limit: 16 })).toBe(16);
  });

  it('prices an overview by its sections: one row per section at least, whatever its limit (each section is a scan)', () => {
    const breakdown = tool('get_ads_breakdown');
    expect(worstCaseCost(breakdown, { field: 'overview', limit: 1 })).toBe(OVERVIEW_SECTIONS.length);
    expect(worstCaseCost(breakdown, { field: 'overview', limit: 40 })).toBe(40);
    expect(worstCaseCost(breakdown, { field: 'country', limit: 1 })).toBe(1);
    expect(breakdown.description).toContain(`field=overview at least ${OVERVIEW_SECTIONS.length}`);
  });

  it('admits free data tools through their own bucket, get_usage through none, and marks the scans', () => {
    const admission = Object.fromEntries(['count_ads', 'search_advertisers', 'get_usage', 'search_ads'].map((name) => [name, tool(name).admission]));
    expect(admission).toEqual({ count_ads: 'free_data', search_advertisers: 'free_data', get_usage: 'unlimited', search_ads: 'paid' });
    expect(TOOLS.filter((t) => t.scan).map((t) => t.name)).toEqual(['get_ads_breakdown', 'get_trends']);
  });
});
