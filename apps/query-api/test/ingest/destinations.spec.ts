import { DESTINATION_TYPES } from '@adintel/contracts';
import { generateDemoAds } from '../../src/ingest/demo-generator';
import { DESTINATION_RULES, destinationOf } from '../../src/ingest/destinations';

describe('destination types from landing URLs (one rules table)', () => {
  it.each([
    ['https://apps.apple.com/us/app/spin/id123', 'app_store'],
    ['https://play.google.com/store/apps/details?id=com.spin', 'app_store'],
    ['https://t.me/luckybet', 'messenger'],
    ['https://wa.me/15550001', 'messenger'],
    ['https://www.instagram.com/acme/', 'social_profile'],
    ['https://m.facebook.com/acme', 'social_profile'],
    ['https://www.amazon.co.uk/stores/acme', 'marketplace'],
    ['https://www.etsy.com/shop/acme', 'marketplace'],
    ['https://acme.myshopify.com/', 'online_shop'],
    ['https://shop.acme.com/boots', 'online_shop'],
    ['https://acme.com/products/boots', 'online_shop'],
    ['https://acme.com/blog/boots', 'website'],
    ['https://google.com/search', 'website'],
    ['https://notamazon.com/', 'website'],
    ['https://facebook.com.evil.org/', 'website'],
  ])('%s is a %s', (url, type) => {
    expect(destinationOf(url)).toBe(type);
  });

  it('has a rule for every type but website (the fallback), and nothing outside the closed list', () => {
    expect(new Set(DESTINATION_RULES.map((r) => r.type))).toEqual(new Set(DESTINATION_TYPES.filter((t) => t !== 'website')));
  });

  it('the demo data holds every type', () => {
    const seen = new Set([...generateDemoAds(3_000, 11)].map((line) => destinationOf(line.landing_url)));
    expect([...seen].sort()).toEqual([...DESTINATION_TYPES].sort());
  });
});
