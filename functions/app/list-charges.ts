import * as z from 'zod';
import { userRoute } from '../../shared/http/handler.js';
import { queryCharges } from '../../shared/accounts/charges.repository.js';

const CHARGE_STATUSES = ['pending', 'charged', 'zero_result', 'released', 'lost_released'] as const;

const ChargesQuerySchema = z.strictObject({
  operation: z.string().trim().min(1).max(64).optional(),
  status: z.enum(CHARGE_STATUSES).optional(),
  // A date (the whole day, UTC) or an instant.
  from: z.union([z.iso.date().transform((d) => `${d}T00:00:00.000Z`), z.iso.datetime({ offset: true })]).optional(),
  to: z.union([z.iso.date().transform((d) => `${d}T23:59:59.999Z`), z.iso.datetime({ offset: true })]).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const handler = userRoute({ query: ChargesQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await queryCharges(accountId, queryParams) }));
