import { publicRoute } from '../../shared/http/handler.js';
import { AddContactsSchema } from '../../shared/sequences/schemas.js';
import { addContacts } from '../../shared/sequences/add-contacts.js';

/** POST /sequences/{id}/contacts/: a new drafting pass for more contacts (202). */
export const handler = publicRoute({ body: AddContactsSchema, paidOperation: 'sequence' }, async ({ accountId, params, body }) => ({ status: 202, body: await addContacts(accountId, params.id!, body) }));
