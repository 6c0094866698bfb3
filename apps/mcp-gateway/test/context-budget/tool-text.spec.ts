import type { Ad } from '@adintel/contracts';
import { renderToolText, sizeOf, tabulate, TEXT_BUDGET } from '../../src/context-budget/tool-text';

/** An ad as wide as the demo's typical ones (title, body and landing URL of their usual lengths). */
function ad(n: number, body = `Fresh deals on running shoes from Northwind Trading Ltd: save big on trail and road models in US number ${n}.`): Ad {
  return {
    id: `ad_${String(n).padStart(9, '0')}`,
    title: `Limited offer shoes today deal number ${n}`,
    body,
    landing_domain: 'shop.northwindtrading.com',
    landing_url: `https://shop.northwindtrading.com/products/trail-runner-${n}?utm_source=facebook&utm_campaign=autumn`,
    destination_type: 'online_shop',
    platform_name: 'facebook',
    advertiser_id: 'adv_000123',
    webmaster_id: 'wm_00042',
    status_today: 'active',
    days_active: 12,
    first_seen_date: '2026-10-01',
    last_seen_date: '2026-10-13',
    countries: ['US', 'CA', 'GB'],
    languages: ['en'],
    categories: ['ecommerce_and_retail', 'fashion_and_apparel'],
    creative_format: 'video',
    media_count: 1,
    creative_id: `cr_${String(n).padStart(8, '0')}`,
    app_id: null,
    impressions: 123_456,
    popularity: 5.43,
    activity_days_amount: 9,
  };
}

const page = (rows: Ad[]) => ({ data: rows, pagination: { next_cursor: 'c'.repeat(120), has_more: true, total: 10_000, total_estimated: true, watermark: 'w1.' + 'w'.repeat(60) } });

/** The oracle: tables back to lists of objects. */
function untabulate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untabulate);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record['columns']) && Array.isArray(record['rows']) && Object.keys(record).length === 2) {
    const columns = record['columns'] as string[];
    return (record['rows'] as unknown[][]).map((row) => Object.fromEntries(columns.map((c, i) => [c, untabulate(row[i])])));
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, untabulate(v)]));
}

describe('the text content of a tool result', () => {
  it('holds the same data as the JSON, every list of objects written as one table', () => {
    const result = {
      field: 'overview',
      total: 3,
      data: [],
      sections: [{ field: 'country', complete: true, data: [{ key: 'US', label: 'United States', ads: 3, share: 1 }] }],
    };
    expect(untabulate(tabulate(result))).toEqual(result);
    const text = renderToolText(page([ad(1), ad(2)]));
    expect(untabulate(JSON.parse(text))).toEqual(page([ad(1), ad(2)]));
    expect(JSON.parse(text).data.columns.slice(0, 3)).toEqual(['id', 'title', 'body']);
  });

  it('keeps a 100-ad page under the budget where its JSON is not, and a default page of 20 under 15,000 characters', () => {
    const hundred = page(Array.from({ length: 100 }, (_, i) => ad(i)));
    expect(JSON.stringify(hundred).length).toBeGreaterThan(TEXT_BUDGET);
    const text = renderToolText(hundred);
    expect(text.length).toBeLessThan(TEXT_BUDGET);
    expect(JSON.parse(text).text_shows_rows).toBeUndefined();
    expect(renderToolText(page(Array.from({ length: 20 }, (_, i) => ad(i)))).length).toBeLessThan(15_000);
  });

  it('cuts rows too wide for the budget, shows the first ones and says how many of how many', () => {
    const wide = page(Array.from({ length: 100 }, (_, i) => ad(i, 'x'.repeat(5_000))));
    const text = renderToolText(wide);
    expect(text.length).toBeLessThanOrEqual(TEXT_BUDGET);
    const shown = JSON.parse(text) as { text_shows_rows: string; data: { rows: unknown[][] } };
    const n = shown.data.rows.length;
    expect(n).toBeGreaterThan(5);
    expect(shown.text_shows_rows).toBe(`${n} of 100`);
    expect(untabulate(shown.data)).toEqual(wide.data.slice(0, n));
    // One more row would not have fitted.
    expect(renderToolText(page(wide.data.slice(0, n + 1)), Infinity).length).toBeGreaterThan(TEXT_BUDGET - 200);
  });

  it('measures itself: characters and an estimate of model tokens (3 characters a token, rounded up)', () => {
    expect(sizeOf('x'.repeat(10))).toEqual({ characters: 10, estimated_tokens: 4 });
    expect(sizeOf('')).toEqual({ characters: 0, estimated_tokens: 0 });
  });
});
