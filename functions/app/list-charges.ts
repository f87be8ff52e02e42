import * as z from '../../shared/core/zod.js';
import { userRoute } from '../../shared/http/handler.js';
import { queryCharges } from '../../shared/accounts/charges.repository.js';

const CHARGE_STATUSES = ['pending', 'charged', 'zero_result', 'released', 'lost_released'] as const;

const ChargesQuerySchema = z.strictObject({
  operation: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(64))),
  status: z.optional(z.enum(CHARGE_STATUSES)),
  // A date (the whole day, UTC) or an instant.
  from: z.optional(z.union([z.pipe(z.iso.date(), z.transform((d: string) => `${d}T00:00:00.000Z`)), z.iso.datetime({ offset: true })])),
  to: z.optional(z.union([z.pipe(z.iso.date(), z.transform((d: string) => `${d}T23:59:59.999Z`)), z.iso.datetime({ offset: true })])),
  cursor: z.optional(z.string().check(z.maxLength(200))),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
});

export const handler = userRoute({ query: ChargesQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await queryCharges(accountId, queryParams) }));
