import { consoleRoute } from '../../shared/http/handler.js';
import { UpdateSendingAccountSchema, withSanitisedSignature } from '../../shared/accounts/sending-account-patch.js';
import { consoleSendingAccountView, getSendingAccount, ownerOfSendingAccount, type SendingAccountChange } from '../../shared/accounts/sending-accounts.repository.js';
import { patchSmtpSettings } from '../../shared/accounts/smtp-settings.js';
import { sealContext, secretBox } from '../../shared/adapters/secret-box.js';
import { changeSendingAccount } from '../../shared/outreach/awaiting-capacity.js';
import { serviceClock } from '../../shared/core/clock.js';
import { withCapacity } from '../../shared/outreach/sending-capacity.js';
import { NotFoundError, ValidationError } from '../../shared/core/errors.js';

export const handler = consoleRoute({ body: UpdateSendingAccountSchema }, async ({ params, body: parsed }) => {
  const body = await withSanitisedSignature(parsed);
  if (body.warmup_started_at && Date.parse(body.warmup_started_at) > serviceClock.now().getTime()) {
    throw new ValidationError('warmup_started_at must not be in the future.', [{ path: 'warmup_started_at', message: 'must not be in the future' }]);
  }
  const { smtp, ...rest } = body;
  const change: SendingAccountChange = rest;
  if (smtp !== undefined || body.transport !== undefined) {
    const owner = await ownerOfSendingAccount(params.ea_id!);
    const current = owner ? await getSendingAccount(owner, params.ea_id!) : null;
    if (!current) throw new NotFoundError('Sending account not found.');
    if (current.type !== 'smtp') {
      throw new ValidationError('smtp settings and transport apply to smtp accounts only.', [{ path: smtp !== undefined ? 'smtp' : 'transport', message: `not allowed for a ${current.type} account` }]);
    }
    if (smtp !== undefined) {
      const next = await patchSmtpSettings(current.smtp, smtp, await secretBox(), sealContext.smtpPassword(current.id));
      if ('missing' in next) {
        throw new ValidationError('An account without smtp settings needs host, port, username and password.', next.missing.map((k) => ({ path: `smtp.${k}`, message: 'required' })));
      }
      change.smtp = next;
    }
  }
  const account = await withCapacity(await changeSendingAccount(params.ea_id!, change));
  return { status: 200, body: { ...consoleSendingAccountView(account), signature_html: account.signature_html } };
});
