import { consoleRoute } from '../../shared/http/handler.js';
import { CreateAccountSchema } from '../../shared/accounts/account-schemas.js';
import { registerAccount } from '../../shared/accounts/register-account.js';

export const handler = consoleRoute({ body: CreateAccountSchema }, async ({ body }) => ({ status: 201, body: await registerAccount(body) }));
