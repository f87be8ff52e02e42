import { consoleRoute } from '../../shared/http/handler.js';
import { CreateSendingAccountSchema } from '../../shared/accounts/account-schemas.js';
import { consoleSendingAccountView, createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { sealSmtpSettings } from '../../shared/accounts/smtp-settings.js';
import { sealContext, secretBox } from '../../shared/adapters/secret-box.js';
import { newId } from '../../shared/core/ids.js';
import { serviceClock } from '../../shared/core/clock.js';
import { ValidationError } from '../../shared/core/errors.js';
import { withCapacity } from '../../shared/outreach/sending-capacity.js';
import { ConsentRequiredError, connectThroughEmulatedConsent, hasEmulatedConsent } from '../../shared/mailboxes/connect-mailbox.js';

/**
 * docs/decisions.md#connecting-a-mailbox: a `google` or `microsoft` account is connected by its owner's consent. On the twin one
 * created here connects by itself through the emulated consent (unless asked for `connected: false`); in
 * AWS these two types are refused with a pointer to `sending-accounts/connect/`. The providers' clients load
 * only on that path (lazy packages), so the other types load none of them. (An `import()` of the service's own
 * module would not defer anything: esbuild inlines it, and keeps every export of every module below it.)
 */
export const handler = consoleRoute({ body: CreateSendingAccountSchema }, async ({ params, body }) => {
  const { smtp, ...settings } = body;
  if (settings.warmup_started_at && Date.parse(settings.warmup_started_at) > serviceClock.now().getTime()) {
    throw new ValidationError('warmup_started_at must not be in the future.', [{ path: 'warmup_started_at', message: 'must not be in the future' }]);
  }
  if (settings.type === 'google' || settings.type === 'microsoft') {
    const type = settings.type;
    if (!(await hasEmulatedConsent(type))) throw new ConsentRequiredError(type);
    if (!settings.connected) return { status: 201, body: consoleSendingAccountView(await withCapacity(await createSendingAccount(params.id!, { ...settings, type }))) };
    const created = await createSendingAccount(params.id!, { ...settings, type, connected: false, health: 'connecting' });
    return { status: 201, body: consoleSendingAccountView(await withCapacity(await connectThroughEmulatedConsent(params.id!, { ...created, type }))) };
  }
  // The id is minted first so that the password is sealed for this sending account's record.
  const id = newId('ea', serviceClock.now().getTime());
  const sealed = smtp ? await sealSmtpSettings(smtp, await secretBox(), sealContext.smtpPassword(id)) : undefined;
  const account = await createSendingAccount(params.id!, { ...settings, ...(sealed ? { smtp: sealed } : {}) }, serviceClock, id);
  return { status: 201, body: consoleSendingAccountView(await withCapacity(account)) };
});
