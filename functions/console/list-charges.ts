import { consoleRoute } from '../../shared/http/handler.js';
import { accountCharges } from '../../shared/accounts/account-charges.js';

export const handler = consoleRoute({}, async ({ params }) => ({ status: 200, body: await accountCharges(params.id!) }));
