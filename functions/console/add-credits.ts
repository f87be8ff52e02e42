import { consoleRoute } from '../../shared/http/handler.js';
import { AddCreditsSchema } from '../../shared/accounts/account-schemas.js';
import { topUpCredits } from '../../shared/accounts/top-up-credits.js';

export const handler = consoleRoute({ body: AddCreditsSchema }, async ({ params, body }) => ({ status: 200, body: await topUpCredits(params.id!, body.amount) }));
