import { demoPicturesWithin, generateDemoAds } from '../../src/ingest/demo-generator';
import { parseDemoMediaUrl } from '../../src/media/demo-creative';

describe("the seed's picture budget", () => {
  const ADS = 3_000;
  const all = new Set([...generateDemoAds(ADS)].flatMap((line) => line.media.map((m) => m.url)));

  it('covers every picture when the budget allows, and stays within a smaller one', () => {
    expect(demoPicturesWithin(ADS, all.size)).toEqual(all);
    const some = demoPicturesWithin(ADS, 300);
    expect(some.size).toBeLessThanOrEqual(300);
    expect(some.size).toBeGreaterThan(250);
    expect(demoPicturesWithin(ADS, 0).size).toBe(0);
  });

  it('takes whole families (a design with all its recuts and cards), the most-run first', () => {
    const some = demoPicturesWithin(ADS, 300);
    const rootOf = (url: string) => parseDemoMediaUrl(url)?.root;
    const roots = new Set([...some].map(rootOf));
    for (const url of all) if (roots.has(rootOf(url))) expect(some.has(url)).toBe(true);
    const adsOf = new Map<string, number>();
    for (const line of generateDemoAds(ADS)) {
      const root = line.media[0] ? rootOf(line.media[0].url) : undefined;
      if (root) adsOf.set(root, (adsOf.get(root) ?? 0) + 1);
    }
    const chosen = Math.min(...[...roots].map((r) => adsOf.get(r as string) ?? 0));
    const best = [...adsOf.values()].sort((a, b) => b - a)[0] ?? 0;
    expect(roots.size).toBeGreaterThan(10);
    expect(chosen).toBeGreaterThan(0);
    expect([...roots].some((r) => adsOf.get(r as string) === best)).toBe(true);
  });
});
