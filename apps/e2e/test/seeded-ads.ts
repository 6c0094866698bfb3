/** The demo store every suite's stack copies (stack.ts), in demo ads. */
export const SEEDED_ADS = 3_000;
/** The larger store of the suites that measure cost at scale (analyst, scan-admission). */
export const LARGE_SEEDED_ADS = 20_000;
