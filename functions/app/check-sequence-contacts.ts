import { userRoute } from '../../shared/http/handler.js';
import { CheckContactsSchema, checkContacts } from '../../shared/sequences/check-contacts.js';

/** POST /api/app/v1/contact-checks/: each contact's eligibility and the quote, nothing written (CSV import). */
export const handler = userRoute({ body: CheckContactsSchema }, async ({ accountId, body }) => ({ status: 200, body: await checkContacts(accountId, body) }));
