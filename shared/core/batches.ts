/**
 * `fn` over `items` in batches of `size` run at once, one batch after the other; the results in the order
 * given. What bounds the reads or writes a long list fires at once (a 500-contact sequence never fires 500).
 */
export async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}
