import { publicRoute } from '../../shared/http/handler.js';
import { emailView } from '../../shared/outreach/model.js';
import { PatchEmailSchema } from '../../shared/outreach/schemas.js';
import { editEmail } from '../../shared/outreach/edit-email.js';

/** PATCH /emails/{id}/: edit while pending_review or queued; returns the email. */
export const handler = publicRoute({ body: PatchEmailSchema }, async ({ accountId, params, body }) => ({ status: 200, body: emailView(await editEmail(accountId, params.id!, body)) }));
