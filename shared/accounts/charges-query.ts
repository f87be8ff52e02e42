import * as z from '../core/zod.js';
import { LEDGER_OPERATIONS } from './operations.js';

const CHARGE_STATUSES = ['pending', 'charged', 'zero_result', 'released', 'lost_released'] as const;

/**
 * The query of a charges list, the web app's (`GET /api/app/v1/charges/`) and the console's
 * (`GET /api/console/v1/accounts/{id}/charges/`) alike: `operation` (one of the ledger's names, operations.ts;
 * any other is a 400), `status`, `from`/`to` (a date, the whole day in UTC, or an instant), `limit` (1–200,
 * default 50) and the `cursor` of the previous page.
 */
export const ChargesQuerySchema = z.strictObject({
  operation: z.optional(z.enum(LEDGER_OPERATIONS)),
  status: z.optional(z.enum(CHARGE_STATUSES)),
  // A date (the whole day, UTC) or an instant.
  from: z.optional(z.union([z.pipe(z.iso.date(), z.transform((d: string) => `${d}T00:00:00.000Z`)), z.iso.datetime({ offset: true })])),
  to: z.optional(z.union([z.pipe(z.iso.date(), z.transform((d: string) => `${d}T23:59:59.999Z`)), z.iso.datetime({ offset: true })])),
  cursor: z.optional(z.string().check(z.maxLength(200))),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
});
