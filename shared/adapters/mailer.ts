import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { sesClient } from './aws.js';

/**
 * Sending through the caller's mailbox. This release sends through SES (v2, raw MIME) for senders on a
 * verified domain identity; locally the same client reaches the SES stand-in, which keeps every message
 * for `GET /api/console/v1/dev/mailbox/`. Gmail API and Microsoft Graph engines plug in here later.
 */
export interface OutgoingMail {
  raw: Buffer;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<{ providerMessageId: string }>;
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
