import { consoleRoute } from '../../shared/http/handler.js';
import { AddCreditsSchema } from '../../shared/accounts/model.js';
import { requireAccount } from '../../shared/accounts/accounts.repository.js';
import { addCredits } from '../../shared/accounts/ledger.repository.js';

export const handler = consoleRoute({ body: AddCreditsSchema }, async ({ params, body }) => {
  await addCredits(params.id!, body.amount);
  return { status: 200, body: await requireAccount(params.id!) };
});
