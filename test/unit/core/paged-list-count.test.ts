import { readPagedList, type PagedListReads } from '../../../shared/core/list-cursor.js';

/**
 * How readPagedList answers `count`, `count_exact` and `total_pages` from a bounded count (issue 42): a page with
 * more after it takes the count it is given, never below the items up to the end of that page; the last page
 * knows its count exactly without counting.
 */
const key = async () => Buffer.alloc(32, 7);

/** A list of `size` keys (newest first) whose count stops at `cap`, as countListIndexUpTo does; counts its count calls. */
function list(size: number, cap: number): PagedListReads<string> & { counts: number } {
  const keys = Array.from({ length: size }, (_, i) => `k${String(size - i).padStart(8, '0')}`);
  const reads = {
    counts: 0,
    async position(page: number, pageSize: number) {
      if (page <= 1) return undefined;
      const skip = (page - 1) * pageSize;
      return skip <= keys.length ? keys[skip - 1] : null;
    },
    async page(after: string | undefined, pageSize: number) {
      const from = after === undefined ? 0 : keys.indexOf(after) + 1;
      const items = keys.slice(from, from + pageSize);
      return { items, walked: items.length, last: items.at(-1), more: from + pageSize < keys.length };
    },
    async count() {
      reads.counts++;
      return size <= cap ? { count: size, exact: true } : { count: cap, exact: false };
    },
  };
  return reads;
}

test('under the cap a page with more after it has the exact count; the last page needs no count', async () => {
  const reads = list(30, 100);
  expect(await readPagedList(['t'], { page_size: 10 }, reads, key)).toMatchObject({ count: 30, count_exact: true, page: 1, total_pages: 3 });
  expect(reads.counts).toBe(1);
  expect(await readPagedList(['t'], { page: 3, page_size: 10 }, reads, key)).toMatchObject({ count: 30, count_exact: true, total_pages: 3, next_cursor: null });
  expect(reads.counts).toBe(1);
});

test('past the cap the count is the cap, count_exact false, and total_pages follows it', async () => {
  const reads = list(1_000, 100);
  const first = await readPagedList(['t'], { page_size: 10 }, reads, key);
  expect(first).toMatchObject({ count: 100, count_exact: false, page: 1, page_size: 10, total_pages: 10, next_cursor: expect.any(String) });
});

test('a page beyond the cap answers at least the items up to its end, still count_exact false', async () => {
  const reads = list(1_000, 100);
  expect(await readPagedList(['t'], { page: 15, page_size: 10 }, reads, key)).toMatchObject({ count: 150, count_exact: false, total_pages: 15, next_cursor: expect.any(String) });
  // Reached by cursor, the same.
  const fourteenth = await readPagedList(['t'], { page: 14, page_size: 10 }, reads, key);
  expect(await readPagedList(['t'], { page_size: 10, cursor: fourteenth.next_cursor! }, reads, key)).toMatchObject({ page: 15, count: 150, count_exact: false });
});

test('the last page of a list past the cap knows its exact count', async () => {
  const reads = list(1_000, 100);
  const before = reads.counts;
  expect(await readPagedList(['t'], { page: 100, page_size: 10 }, reads, key)).toMatchObject({ count: 1_000, count_exact: true, total_pages: 100, next_cursor: null });
  expect(reads.counts).toBe(before);
});

test('a page past the end of a list past the cap answers the bounded count', async () => {
  const reads = list(1_000, 100);
  expect(await readPagedList(['t'], { page: 500, page_size: 10 }, reads, key)).toEqual({ count: 100, count_exact: false, page: 500, page_size: 10, total_pages: 10, results: [], next_cursor: null });
});
