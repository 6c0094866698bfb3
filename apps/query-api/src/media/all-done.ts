/**
 * Promise.all that settles only once every promise has, then throws the first rejection: a failed media step leaves
 * no write (a file, a thumbnail, a spool) still running behind the error it reports.
 */
export async function allDone<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled: PromiseSettledResult<unknown>[] = await Promise.allSettled<readonly unknown[]>(values);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}
