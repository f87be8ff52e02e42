import { paidUserRoute } from '../../shared/http/handler.js';
import { AddContactsSchema } from '../../shared/sequences/schemas.js';
import { addContacts } from '../../shared/sequences/add-contacts.js';

/** POST /api/app/v1/sequences/{sequence_id}/contacts/: as POST /sequences/{id}/contacts/. */
export const handler = paidUserRoute('sequence', { body: AddContactsSchema }, async ({ accountId, params, body }) => ({
  status: 202,
  body: await addContacts(accountId, params.sequence_id!, body),
}));
