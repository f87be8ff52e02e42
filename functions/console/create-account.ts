import { consoleRoute } from '../../shared/http/handler.js';
import { CreateAccountSchema } from '../../shared/accounts/model.js';
import { createAccount } from '../../shared/accounts/accounts.repository.js';

const pilotLimit = Number(process.env.PILOT_ACCOUNT_LIMIT ?? 3);

export const handler = consoleRoute({ body: CreateAccountSchema }, async ({ body }) => {
  const account = await createAccount(body, { pilotLimit });
  return { status: 201, body: account };
});
