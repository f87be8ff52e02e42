import { consoleRoute } from '../../shared/http/handler.js';
import { UpdateAccountSchema } from '../../shared/accounts/account-schemas.js';
import { updateAccount } from '../../shared/accounts/accounts.repository.js';

const pilotLimit = Number(process.env.PILOT_ACCOUNT_LIMIT ?? 3);

/** PATCH accounts/{id}/ (docs/decisions.md#console-api): flags, `attachments_enabled`, `followup_days`; answers the account. */
export const handler = consoleRoute({ body: UpdateAccountSchema }, async ({ params, body }) => ({ status: 200, body: await updateAccount(params.id!, body, { pilotLimit }) }));
