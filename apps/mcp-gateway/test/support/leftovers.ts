/**
 * What a suite's servers leave open when their start-up hook times out. Jest then fails the hook, but the start goes
 * on and ends with a gateway (or an issuer) listening that no afterAll holds: jest waits on it and the whole run hangs
 * past its time. Each server is tracked from the moment it exists until it is closed, and whatever is still open when
 * the suite ends is closed here (close-leftovers.ts, jest's setupFilesAfterEnv).
 */
const open = new Set<() => Promise<void>>();

/** Tracks a server from now on; the close returned stops tracking it and closes it. */
export function tracked(close: () => Promise<void>): () => Promise<void> {
  open.add(close);
  return () => {
    open.delete(close);
    return close();
  };
}

/** Closes every server still open; the number closed. */
export async function closeLeftovers(): Promise<number> {
  const left = [...open];
  open.clear();
  await Promise.allSettled(left.map((close) => close()));
  return left.length;
}
