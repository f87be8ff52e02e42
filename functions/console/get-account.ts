import { consoleRoute } from '../../shared/http/handler.js';
import { requireAccount } from '../../shared/accounts/accounts.repository.js';

export const handler = consoleRoute({}, async ({ params }) => ({ status: 200, body: await requireAccount(params.id!) }));
