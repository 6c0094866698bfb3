import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { seededStore as SeededStore } from '@adintel/testing';
import { LARGE_SEEDED_ADS, SEEDED_ADS } from './seeded-ads';

/**
 * Starts the seeds of the suites' two demo stores when the whole project runs, without waiting for them: the suites
 * copy them (stack.ts) and wait for a seed under way, so the 20,000-ad store (two minutes of CPU, most of it pictures)
 * is made beside the first suites instead of holding up the first suite that needs it (in the run of 2026-11-27 08:14
 * UTC, analyst's start timed out in that seed, and fuzz's in the 3,000-ad one). A run of some suites only
 * (a path pattern) seeds what they ask for, as they ask.
 */
export default function globalSetup(globalConfig: { testPathPatterns?: { isSet(): boolean } }): void {
  if (globalConfig.testPathPatterns?.isSet()) return;
  // Jest loads this file outside its module map, where the @adintel/* path aliases do not resolve: the lib by its path.
  const load = createRequire(__filename);
  const { seededStore } = load(join(__dirname, '../../../libs/testing/src/seeded-store.ts')) as { seededStore: typeof SeededStore };
  // One after the other: the first suites wait for the small store, so the large one does not slow its seed.
  void (async () => {
    for (const ads of [SEEDED_ADS, LARGE_SEEDED_ADS]) {
      // A failed seed frees its lock: the first suite that needs the store then seeds it and reports the error.
      await seededStore(ads).catch((error: unknown) => console.error(`e2e global setup: seeding ${ads} ads failed (a suite will try again): ${String(error)}`));
    }
  })();
}
