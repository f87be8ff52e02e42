import { userRoute } from '../../shared/http/handler.js';
import { getOwnEmail } from '../../shared/outreach/get-email.js';

export const handler = userRoute({}, async ({ accountId, params }) => ({ status: 200, body: await getOwnEmail(accountId, params.email_id!) }));
