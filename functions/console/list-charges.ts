import { consoleRoute } from '../../shared/http/handler.js';
import { accountCharges } from '../../shared/accounts/account-charges.js';
import { ChargesQuerySchema } from '../../shared/accounts/charges-query.js';

export const handler = consoleRoute({ query: ChargesQuerySchema }, async ({ params, queryParams }) => ({ status: 200, body: await accountCharges(params.id!, queryParams) }));
