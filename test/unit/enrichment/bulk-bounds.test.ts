import { parseWith } from '../../../shared/http/handler.js';
import { BulkEnrichSchema, MAX_BULK_ITEM_BYTES, MAX_BULK_ITEM_DEPTH, MAX_BULK_ITEMS_BYTES } from '../../../shared/enrichment/bulk.schema.js';
import { ValidationError } from '../../../shared/core/errors.js';

/**
 * POST /enrich/bulk/ keeps its request in the job item (400 KB, 32 levels of nesting at most): an item past the
 * size or depth bound, or items past their total, are a 400 `invalid_request` naming them (issue 42 item 5).
 */
const hook = 'https://hooks.example.com/people';
const wide = (n: number) => '数'.repeat(n);
// The largest valid item: every identity field at its longest, names in a 3-byte script.
const largestValid = (i: number) => ({
  kind: 'phone', professional_url: `https://www.linkedin.com/in/jane-doe-${i}?${'q'.repeat(2048)}`.slice(0, 2048), email: `${'e'.repeat(64)}@${'d'.repeat(60)}.example.com`,
  first_name: wide(100), last_name: wide(100), company_name: wide(200),
});
const details = (body: unknown) => {
  try {
    parseWith(BulkEnrichSchema, body);
  } catch (e) {
    if (e instanceof ValidationError) return e.details;
    throw e;
  }
  return null;
};

test('an item past the byte bound is 400 on items.<i>; the largest valid items, and a small malformed one, pass', () => {
  expect(Buffer.byteLength(JSON.stringify(largestValid(0)))).toBeLessThan(MAX_BULK_ITEM_BYTES);
  expect(details({ items: Array.from({ length: 60 }, (_, i) => largestValid(i)), webhook_url: hook })).toBeNull();
  expect(details({ items: [{ kind: 'nope', x: { y: [1] } }, 'junk'], webhook_url: hook })).toBeNull();
  const big = { kind: 'email', professional_url: 'x'.repeat(MAX_BULK_ITEM_BYTES) };
  expect(details({ items: [largestValid(0), big], webhook_url: hook })).toEqual([{ path: 'items.1', message: expect.stringContaining(`at most ${MAX_BULK_ITEM_BYTES}`) }]);
});

test('an item nesting past the depth bound is 400 on items.<i>, however deep (no stack overflow)', () => {
  let deep: unknown = 'x';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const justTooDeep = { kind: 'email', a: { b: { c: { d: 'x' } } } } as Record<string, unknown>;
  ((justTooDeep.a as any).b.c.d = { e: 'x' });
  expect(details({ items: [{ kind: 'email', a: { b: { c: { d: 'x' } } } }, justTooDeep, deep], webhook_url: hook })).toEqual([
    { path: 'items.1', message: `nests deeper than ${MAX_BULK_ITEM_DEPTH} levels` },
    { path: 'items.2', message: `nests deeper than ${MAX_BULK_ITEM_DEPTH} levels` },
  ]);
});

test('items past their total bound are 400 on items', () => {
  const items = Array.from({ length: 100 }, (_, i) => largestValid(i));
  expect(Buffer.byteLength(JSON.stringify(items))).toBeGreaterThan(MAX_BULK_ITEMS_BYTES);
  expect(details({ items, webhook_url: hook })).toEqual([{ path: 'items', message: expect.stringContaining(`at most ${MAX_BULK_ITEMS_BYTES}`) }]);
});
