import { consoleRoute } from '../../shared/http/handler.js';
import { listCharges, requireAccount } from '../../shared/accounts/accounts.repository.js';

export const handler = consoleRoute({}, async ({ params }) => {
  await requireAccount(params.id!);
  return { status: 200, body: { results: await listCharges(params.id!) } };
});
