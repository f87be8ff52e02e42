import { userRoute } from '../../shared/http/handler.js';
import { emailView } from '../../shared/outreach/model.js';
import { PatchEmailSchema } from '../../shared/outreach/schemas.js';
import { editEmail } from '../../shared/outreach/edit-email.js';

export const handler = userRoute({ body: PatchEmailSchema }, async ({ accountId, params, body }) => ({ status: 200, body: emailView(await editEmail(accountId, params.email_id!, body)) }));
