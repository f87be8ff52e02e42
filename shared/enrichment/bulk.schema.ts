import * as z from '../core/zod.js';
import { PRICES } from '../accounts/prices.js';
import { BULK_ITEM_KINDS, type BulkItemKind } from '../webhooks/events.js';
import { EmailEnrichSchema, PhoneIdentitySchema, ProfessionalUrlEnrichSchema, ProfileEnrichSchema } from './enrichment.js';

/**
 * POST /enrich/bulk/ (docs/decisions.md#bulk-enrichment): 1 to 100 items, each `{kind, …}` with the body fields
 * of that kind's single call (no `webhook_url`: the bulk call's own is the job's). The body schema lets any
 * item through: an item is checked on its own (`planBulkItem`), and a malformed one becomes its own
 * `invalid_input` result, never charged, while the other items go on. The published document shows the
 * shape an item must have (shared/contract/openapi.ts).
 */
export const MAX_BULK_ITEMS = 100;
export const BulkItemSchema = z.unknown();

/**
 * Bounds an item is held to at acceptance, whatever it holds, since the request is kept in the job item (one
 * DynamoDB item: 400 KB at most, 32 levels of nesting) beside the results. A valid item is one object of
 * strings (depth 1) of at most ~4 KB (a 2,048-character URL, a 320-character email, names of 3-byte characters);
 * an item past MAX_BULK_ITEM_BYTES (its JSON in UTF-8) or MAX_BULK_ITEM_DEPTH, or items past
 * MAX_BULK_ITEMS_BYTES together, make the call 400 `invalid_request` with `details` (`items.<i>` or `items`)
 * instead of a job item DynamoDB would refuse.
 */
export const MAX_BULK_ITEM_BYTES = 8 * 1024;
export const MAX_BULK_ITEM_DEPTH = 4;
export const MAX_BULK_ITEMS_BYTES = 300_000;

/** How deep `v` nests (a scalar 0, an object or array 1 + its deepest member), counted only up to `limit + 1`, without recursion. */
export function nestingDepth(v: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    deepest = Math.max(deepest, d + 1);
    if (deepest > limit) return deepest;
    for (const member of Object.values(x)) stack.push([member, d + 1]);
  }
  return deepest;
}

/** The items' size and depth bounds, as issues on `items.<i>` (or `items` for their total). */
function itemBoundIssues(items: unknown[], ctx: z.core.$RefinementCtx<unknown[]>) {
  let total = 0;
  for (const [i, item] of items.entries()) {
    if (nestingDepth(item, MAX_BULK_ITEM_DEPTH) > MAX_BULK_ITEM_DEPTH) {
      ctx.addIssue({ code: 'custom', path: [i], message: `nests deeper than ${MAX_BULK_ITEM_DEPTH} levels` });
      continue;
    }
    const bytes = Buffer.byteLength(JSON.stringify(item) ?? '');
    total += bytes;
    if (bytes > MAX_BULK_ITEM_BYTES) ctx.addIssue({ code: 'custom', path: [i], message: `is ${bytes} bytes as JSON; at most ${MAX_BULK_ITEM_BYTES}` });
  }
  if (total > MAX_BULK_ITEMS_BYTES) ctx.addIssue({ code: 'custom', path: [], message: `the items are ${total} bytes as JSON together; at most ${MAX_BULK_ITEMS_BYTES}` });
}

export const BulkEnrichSchema = z.lazy(() =>
  z.strictObject({
    items: z.array(BulkItemSchema).check(z.minLength(1), z.maxLength(MAX_BULK_ITEMS), z.superRefine(itemBoundIssues)),
    webhook_url: z.string().check(z.maxLength(2048)),
  }),
);

/** Each kind's single call: its request schema, its ledger operation and its price (the most an item can cost). */
export const BULK_KINDS = {
  email: { schema: EmailEnrichSchema, operation: 'email_enrich', price: PRICES.email_enrich },
  professional_url: { schema: ProfessionalUrlEnrichSchema, operation: 'professional_url_enrich', price: PRICES.professional_url_enrich },
  professional_profile: { schema: ProfileEnrichSchema, operation: 'professional_profile_enrich', price: PRICES.professional_profile_enrich },
  phone: { schema: PhoneIdentitySchema, operation: 'phone_enrich', price: PRICES.phone_enrich },
} as const satisfies Record<BulkItemKind, unknown>;

/** The ledger operation of an item that never got as far as a kind (no audit record names `null`). */
export const INVALID_ITEM_OPERATION = 'bulk_enrich_item';

export type PlannedItem =
  | { valid: true; kind: BulkItemKind; input: Record<string, unknown>; operation: string; reserve: number }
  | { valid: false; kind: BulkItemKind | null; message: string; operation: string; reserve: 0 };

const isKind = (k: unknown): k is BulkItemKind => typeof k === 'string' && (BULK_ITEM_KINDS as readonly string[]).includes(k);

/**
 * One item as the job will run it: its kind, its validated input and the most it can cost (its single call's
 * price, reserved at acceptance), or why it is invalid (reserved 0). Deterministic, so the acceptance and
 * every delivery of the worker plan an item the same way.
 */
export function planBulkItem(raw: unknown): PlannedItem {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { valid: false, kind: null, message: 'item must be an object with a kind', operation: INVALID_ITEM_OPERATION, reserve: 0 };
  }
  const { kind, ...fields } = raw as Record<string, unknown>;
  if (!isKind(kind)) {
    return { valid: false, kind: null, message: `kind must be one of ${BULK_ITEM_KINDS.join(', ')}`, operation: INVALID_ITEM_OPERATION, reserve: 0 };
  }
  const def = BULK_KINDS[kind];
  const parsed = (def.schema as z.ZodMiniType<Record<string, unknown>>).safeParse(fields);
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => `${i.path.join('.') || '(item)'}: ${i.message}`).join('; ');
    return { valid: false, kind, message, operation: def.operation, reserve: 0 };
  }
  return { valid: true, kind, input: parsed.data, operation: def.operation, reserve: def.price };
}

/** The reservation of a whole bulk call: the sum of its valid items' single-call prices. */
export const bulkReservation = (items: readonly PlannedItem[]) => items.reduce((n, i) => n + i.reserve, 0);
