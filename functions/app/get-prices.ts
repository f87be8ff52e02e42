import { userRoute } from '../../shared/http/handler.js';
import { PRICES } from '../../shared/accounts/prices.js';

/** GET /api/app/v1/prices/: the price list (docs/decisions.md#billing-model), so the app quotes a cost before it is incurred. */
export const handler = userRoute({}, async () => ({ status: 200, body: PRICES }));
