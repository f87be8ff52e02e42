import { consoleRoute } from '../../shared/http/handler.js';
import { AddAccountUserSchema, addAccountUser } from '../../shared/accounts/add-account-user.js';

export const handler = consoleRoute({ body: AddAccountUserSchema }, async ({ params, body }) => ({ status: 201, body: await addAccountUser(params.id!, body) }));
