import { accountSmtpMailer, relayMailer, sesMailer, type Mailer } from '../adapters/mailer.js';
import type { SendingAccount } from '../accounts/model.js';
import { getConnection } from './mailboxes.repository.js';
import { withMailbox, type SessionDeps } from './mailbox-session.js';

/**
 * Sending through a connected mailbox. The MIME is handed over as built; Bcc recipients, which travel
 * outside the headers elsewhere, go in a Bcc header that both providers deliver to and strip. A sending
 * account record without a mailbox connection (from before connections existed) goes to `fallback`.
 */
export function withBccHeader(raw: Buffer, bcc: string[]): Buffer {
  return bcc.length ? Buffer.concat([Buffer.from(`Bcc: ${bcc.join(', ')}\r\n`, 'utf8'), raw]) : raw;
}

export function mailboxMailer(eaId: string, fallback: Mailer, deps: SessionDeps = {}): Mailer {
  return {
    async send(mail) {
      const connection = await getConnection(eaId);
      if (!connection) return fallback.send(mail);
      return withMailbox(connection, (api) => api.send({ raw: withBccHeader(mail.raw, mail.bcc), threadId: mail.threadId ?? null }), deps);
    },
  };
}

/**
 * The engine for a sending account. `google`/`microsoft`: its connected mailbox (Gmail API, Microsoft
 * Graph); a record without a mailbox connection (written before connections existed, or straight to the
 * table) keeps SES. `smtp`: SES when its transport is `ses`, else its own server, else the deployment's relay.
 */
export function mailerFor(account: SendingAccount): Mailer {
  if (account.type === 'google' || account.type === 'microsoft') return mailboxMailer(account.id, sesMailer);
  if (account.transport === 'ses') return sesMailer;
  const { smtp } = account;
  return smtp ? accountSmtpMailer({ ...account, smtp }) : relayMailer;
}
