import { userRoute } from '../../shared/http/handler.js';
import { emailView } from '../../shared/outreach/model.js';
import { cancelEmail } from '../../shared/outreach/review.js';

export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: emailView(await cancelEmail(accountId, params.email_id!)) }));
