import { consoleRoute } from '../../shared/http/handler.js';
import { CreateSendingAccountSchema } from '../../shared/accounts/account-schemas.js';
import { consoleSendingAccountView, createSendingAccount } from '../../shared/accounts/sending-accounts.repository.js';
import { sealSmtpSettings } from '../../shared/accounts/smtp-settings.js';
import { secretBox } from '../../shared/adapters/secret-box.js';

export const handler = consoleRoute({ body: CreateSendingAccountSchema }, async ({ params, body }) => {
  const { smtp, ...settings } = body;
  const sealed = smtp ? await sealSmtpSettings(smtp, await secretBox()) : undefined;
  const account = await createSendingAccount(params.id!, { ...settings, ...(sealed ? { smtp: sealed } : {}) });
  return { status: 201, body: consoleSendingAccountView(account) };
});
