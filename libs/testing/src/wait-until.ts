/** Polls `condition` until it holds; rejects after `timeoutMs` (a bound on waiting, not a speed assertion). */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, pollMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
