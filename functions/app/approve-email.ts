import { userRoute } from '../../shared/http/handler.js';
import { emailView } from '../../shared/outreach/model.js';
import { ApproveEmailSchema } from '../../shared/outreach/schemas.js';
import { approveEmail } from '../../shared/outreach/review.js';

export const handler = userRoute({ body: ApproveEmailSchema }, async ({ accountId, params, body }) => ({ status: 200, body: emailView(await approveEmail(accountId, params.email_id!, body)) }));
