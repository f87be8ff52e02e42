import { publicRoute } from '../../shared/http/handler.js';
import { NotFoundError } from '../../shared/core/errors.js';
import { getEmail } from '../../shared/outreach/emails.repository.js';
import { emailView } from '../../shared/outreach/model.js';

/** GET /emails/{id}/: the caller's email record (another tenant's id is a 404). */
export const handler = publicRoute({}, async ({ account, params }) => {
  const email = await getEmail(account.id, params.id!);
  if (!email) throw new NotFoundError('Email not found.');
  return { status: 200, body: emailView(email) };
});
