import { userRoute } from '../../shared/http/handler.js';
import { queryCharges } from '../../shared/accounts/charges.repository.js';
import { ChargesQuerySchema } from '../../shared/accounts/charges-query.js';

export const handler = userRoute({ query: ChargesQuerySchema }, async ({ accountId, queryParams }) => ({ status: 200, body: await queryCharges(accountId, queryParams) }));
