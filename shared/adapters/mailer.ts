import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { createTransport, type Transporter } from 'nodemailer';
import { sesClient } from './ses-client.js';
import { isLocalMode, optionalEnv, requireEnv } from '../core/env.js';
import { mailboxMailer } from '../mailboxes/mailbox-mailer.js';

/**
 * Sending through the caller's mailbox. This release sends through SES (v2, raw MIME) for senders on a
 * verified domain identity; locally the same client reaches the SES stand-in, which keeps every message
 * for `GET /api/console/v1/dev/mailbox/`. A `google` or `microsoft` account connected through OAuth sends
 * through the Gmail API or Microsoft Graph (shared/mailboxes/mailbox-mailer.ts).
 */
export interface OutgoingMail {
  raw: Buffer;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  /** The provider thread a follow-up continues (Gmail threadId); engines without threads ignore it. */
  threadId?: string | null;
}

export interface SentMail {
  providerMessageId: string;
  /** The Message-ID the recipient sees, when the engine knows it (a provider may replace ours). */
  messageId?: string | null;
  /** The provider's thread (Gmail threadId, Graph conversationId). */
  threadId?: string | null;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<SentMail>;
}

export const sesMailer: Mailer = {
  async send(mail) {
    const out = await sesClient().send(
      new SendEmailCommand({
        FromEmailAddress: mail.from,
        Destination: { ToAddresses: mail.to, CcAddresses: mail.cc.length ? mail.cc : undefined, BccAddresses: mail.bcc.length ? mail.bcc : undefined },
        Content: { Raw: { Data: mail.raw } },
      }),
    );
    return { providerMessageId: out.MessageId ?? '' };
  },
};

/**
 * `smtp` sending accounts go out through nodemailer over SMTP to the relay named by `SMTP_HOST` /
 * `SMTP_PORT` (optional `SMTP_USER` / `SMTP_PASS`); locally that is the stack's own SMTP sink. The raw
 * MIME is passed through unchanged, with every recipient (bcc included) in the envelope only.
 */
let smtp: Transporter | undefined;
export const smtpMailer: Mailer = {
  async send(mail) {
    smtp ??= createTransport({
      host: requireEnv('SMTP_HOST'),
      port: Number(requireEnv('SMTP_PORT')),
      secure: false,
      ignoreTLS: isLocalMode(),
      // Port 587 upgrades with STARTTLS; without requireTLS a stripped STARTTLS offer would send in clear text.
      requireTLS: !isLocalMode(),
      auth: optionalEnv('SMTP_USER') ? { user: optionalEnv('SMTP_USER')!, pass: optionalEnv('SMTP_PASS') ?? '' } : undefined,
    });
    const info = await smtp.sendMail({ envelope: { from: mail.from, to: [...mail.to, ...mail.cc, ...mail.bcc] }, raw: mail.raw });
    return { providerMessageId: String(info.messageId ?? '').replace(/^<|>$/g, '') };
  },
};

export function resetSmtp(): void {
  smtp?.close();
  smtp = undefined;
}

/**
 * The engine for a sending account. `google`/`microsoft` with the account's id: its connected mailbox
 * (Gmail API, Microsoft Graph); one created by an operator without an OAuth connection keeps SES.
 */
export function mailerFor(type: 'google' | 'microsoft' | 'smtp', sendingAccountId?: string): Mailer {
  if (type === 'smtp') return smtpMailer;
  return sendingAccountId ? mailboxMailer(sendingAccountId, sesMailer) : sesMailer;
}
