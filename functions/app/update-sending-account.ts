import { userRoute } from '../../shared/http/handler.js';
import { AppSendingAccountPatchSchema, withSanitisedSignature } from '../../shared/accounts/sending-account-patch.js';
import { consoleSendingAccountView, getSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { changeSendingAccount } from '../../shared/outreach/awaiting-capacity.js';
import { withCapacity } from '../../shared/outreach/sending-capacity.js';
import { NotFoundError } from '../../shared/core/errors.js';

export const handler = userRoute({ body: AppSendingAccountPatchSchema }, async ({ accountId, params, body }) => {
  // Read under the caller's account: another account's sending account is not found.
  if (!(await getSendingAccount(accountId, params.ea_id!))) throw new NotFoundError('Sending account not found.');
  const account = await withCapacity(await changeSendingAccount(params.ea_id!, await withSanitisedSignature(body)));
  return { status: 200, body: { ...consoleSendingAccountView(account), signature_html: account.signature_html } };
});
