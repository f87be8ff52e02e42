import { userRoute } from '../../shared/http/handler.js';
import { accountOverview } from '../../shared/accounts/account-overview.js';

export const handler = userRoute({}, async ({ accountId }) => ({ status: 200, body: await accountOverview(accountId) }));
