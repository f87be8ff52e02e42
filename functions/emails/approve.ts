import { publicRoute } from '../../shared/http/handler.js';
import { emailView } from '../../shared/outreach/model.js';
import { ApproveEmailSchema } from '../../shared/outreach/schemas.js';
import { approveEmail } from '../../shared/outreach/review.js';

/** POST /emails/{id}/approve/: only while pending_review; returns the updated email with scheduled_for. */
export const handler = publicRoute({ body: ApproveEmailSchema }, async ({ accountId, params, body }) => ({ status: 200, body: emailView(await approveEmail(accountId, params.id!, body)) }));
