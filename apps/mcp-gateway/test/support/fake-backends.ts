import { INTERFACE_VERSION, MeteringMessages, QueryMessages, type Ad, ServiceError } from '@adintel/contracts';
import { FakeService } from './fake-services';

export const TRIAL_TOKENS = 500;

export function sampleAd(n: number): Ad {
  return {
    id: `ad-${n}`,
    title: `Ad ${n}`,
    body: 'body',
    landing_domain: 'example.com',
    landing_url: 'https://shop.example.com/x',
    destination_type: 'online_shop',
    platform_name: 'facebook',
    advertiser_id: 'adv-1',
    webmaster_id: null,
    status_today: 'active',
    days_active: 3,
    first_seen_date: '2026-01-01',
    last_seen_date: '2026-01-04',
    countries: ['US'],
    languages: ['en'],
    categories: ['finance_and_banking'],
    creative_format: 'image',
    media_count: 1,
    creative_id: 'cr-1',
    app_id: null,
    impressions: 100,
    popularity: 1,
    activity_days_amount: 3,
  };
}

/** query-api with a fixed store of `available` ads. */
export function fakeQuery(available = 7): FakeService {
  return new FakeService('query')
    .on(QueryMessages.searchAds, (args) => {
      const rows = Math.min(Number(args['limit']), available);
      return {
        data: Array.from({ length: rows }, (_, i) => sampleAd(i + 1)),
        pagination: { next_cursor: null, has_more: false, total: available, total_estimated: false, watermark: null },
      };
    })
    .on(QueryMessages.countAds, () => ({ total: available, total_estimated: false, cost_of_next_page: available }))
    .on(QueryMessages.getAd, (args) => {
      throw ServiceError.notFound('ad', String(args['id']));
    })
    .on(QueryMessages.trends, (args) => ({
      dimension: args['dimension'],
      window: { date_from: '2026-01-01', date_to: '2026-01-30' },
      previous_window: { date_from: '2025-12-02', date_to: '2025-12-31' },
      total_ads: 0,
      data: [],
    }))
    .on(QueryMessages.catalog, () => ({
      interface_version: INTERFACE_VERSION,
      countries: [{ value: 'US', label: 'United States' }],
      platforms: ['facebook', 'tiktok'],
      categories: [],
      languages: ['en'],
      creative_formats: ['image'],
      statuses: ['active', 'inactive'],
      sorts: ['date'],
      trend_dimensions: ['geo'],
      breakdown_fields: ['country'],
      destination_types: ['website'],
      data_window: { first_seen_date: null, last_seen_date: null },
      coverage: [],
      data_as_of: null,
      data_updated_at: null,
      tools: [],
    }))
    .on(QueryMessages.ping, () => ({ service: 'query', at: new Date().toISOString() }));
}

interface Hold {
  caller: string;
  reserved: number;
  settlement?: { request_id: string; charged: number; refunded: number; remaining: number };
}

/** metering with trial balances, idempotent reservations and a record of every settlement. */
export function fakeMetering(balances = new Map<string, number>()) {
  const holds = new Map<string, Hold>();
  const balanceOf = (caller: string) => balances.get(caller) ?? TRIAL_TOKENS;
  const settle = (requestId: string, charged: number) => {
    const hold = holds.get(requestId);
    if (!hold) throw ServiceError.of('not_found', `no reservation ${requestId}`);
    if (!hold.settlement) {
      balances.set(hold.caller, balanceOf(hold.caller) + hold.reserved - charged);
      hold.settlement = { request_id: requestId, charged, refunded: hold.reserved - charged, remaining: balanceOf(hold.caller) };
    }
    return hold.settlement;
  };
  const service = new FakeService('metering')
    .on(MeteringMessages.reserve, ({ request_id, caller_id, amount }) => {
      const key = String(request_id);
      const caller = String(caller_id);
      const existing = holds.get(key);
      if (existing) return { request_id: key, pool: 'agent', reserved: existing.reserved, remaining: balanceOf(caller) };
      const needed = Number(amount);
      const remaining = balanceOf(caller);
      if (remaining < needed) throw ServiceError.insufficientBalance({ needed, remaining, max_affordable_limit: remaining });
      balances.set(caller, remaining - needed);
      holds.set(key, { caller, reserved: needed });
      return { request_id: key, pool: 'agent', reserved: needed, remaining: remaining - needed };
    })
    .on(MeteringMessages.settle, ({ request_id, charged }) => settle(String(request_id), Number(charged)))
    .on(MeteringMessages.release, ({ request_id }) => settle(String(request_id), 0))
    .on(MeteringMessages.getUsage, ({ caller_id }) => {
      const remaining = balanceOf(String(caller_id));
      return { plan: 'trial', pool: 'agent', allowance: TRIAL_TOKENS, used: TRIAL_TOKENS - remaining, reserved: 0, remaining, period: null };
    })
    .on(MeteringMessages.ping, () => ({ service: 'metering', at: new Date().toISOString() }));
  return { service, balances, holds, balanceOf, settle };
}
