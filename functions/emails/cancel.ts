import { publicRoute } from '../../shared/http/handler.js';
import { emailView } from '../../shared/outreach/model.js';
import { cancelEmail } from '../../shared/outreach/review.js';

/** POST /emails/{id}/cancel/: while drafting, pending_review or queued; returns the email. */
export const handler = publicRoute({}, async ({ accountId, params }) => ({ status: 200, body: emailView(await cancelEmail(accountId, params.id!)) }));
