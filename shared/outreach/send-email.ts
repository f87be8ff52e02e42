import { getSendingAccount, recordSend } from '../accounts/sending-accounts.repository.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { optionalEnv } from '../core/env.js';
import { mailerFor, type Mailer } from '../adapters/mailer.js';
import { sendMessage } from '../adapters/queue.js';
import { getEmail, putMessageIdPointer, transition } from './emails.repository.js';
import { messages } from '../catalog/messages.js';
import { getLead, isSuppressed } from './leads.repository.js';
import { appendUnsubscribeFooter, buildMime, envelopeFor, unsubscribeHeaders } from './mime.js';
import { releaseSlot } from './slots.js';
import { logger } from '../core/logger.js';

/**
 * The send worker. At the slot it re-checks everything (still queued, the recipient has not replied,
 * bounced or unsubscribed, the account still connected and enabled), claims the email (`queued` →
 * `sending`, once), builds proper MIME (plain + HTML, cc, reply-to, Message-ID, one-click unsubscribe,
 * open pixel) and hands it to the mailer. `sent` with `sent_at`, or `failed` with `error`.
 *
 * A redelivered message never sends twice: only the claim's winner sends, and an email found already in
 * `sending` (a crash between claim and record) is marked failed as "may have been sent", never resent.
 */
export function publicBaseUrl(): string {
  return (optionalEnv('PUBLIC_BASE_URL') ?? 'http://localhost:3000').replace(/\/$/, '');
}

export const unsubscribeUrl = (token: string) => `${publicBaseUrl()}/api/public/v1/u/${token}/`;
export const openPixelUrl = (token: string) => `${publicBaseUrl()}/api/public/v1/o/${token}/`;

/** Timer target: the slot has come; hand the email to the sending queue. */
export async function sendDue(accountId: string, emailId: string): Promise<void> {
  await sendMessage('sending', messages.sendEmail(accountId, emailId));
}

export async function sendEmail(accountId: string, emailId: string, deps: { clock?: Clock; mailer?: Mailer } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const email = await getEmail(accountId, emailId);
  if (!email) return;
  const nowIso = () => clock.now().toISOString();
  if (email.status === 'sending') {
    await transition(accountId, emailId, ['sending'], { status: 'failed', updated_at: nowIso(), error: { code: 'send_interrupted', message: 'The send was interrupted; the email may have been sent, so it is not retried.' } });
    return;
  }
  if (email.status !== 'queued') return;
  if (email.scheduled_for && new Date(email.scheduled_for).getTime() > clock.now().getTime() + 1000) return; // rescheduled later

  const fail = async (code: string, message: string, status: 'failed' | 'cancelled' = 'failed') => {
    const moved = await transition(accountId, emailId, ['queued'], { status, updated_at: nowIso(), error: { code, message } });
    if (moved && email.slot_day) await releaseSlot(email.from_account, email.slot_day);
  };
  const lead = await getLead(accountId, email.to.email);
  if (lead?.replied_at) return fail('recipient_replied', 'The recipient has replied; further sends to them are stopped.', 'cancelled');
  if (lead?.bounced_at) return fail('recipient_bounced', 'An earlier email to this recipient bounced.');
  if (await isSuppressed(accountId, email.to.email)) return fail('unsubscribed', 'The recipient has unsubscribed.');
  const account = await getSendingAccount(accountId, email.from_account, clock);
  if (!account || !account.connected || !account.sending_enabled) {
    return fail('sender_unavailable', 'The sending account is not connected or not enabled for sending.');
  }

  const claimed = await transition(accountId, emailId, ['queued'], { status: 'sending', updated_at: nowIso() });
  if (!claimed) return;

  const domain = email.from_email.split('@')[1] ?? 'localhost';
  const messageId = `<${emailId}.${email.track_token.slice(0, 8)}@${domain}>`;
  const unsub = unsubscribeUrl(email.track_token);
  const body = appendUnsubscribeFooter({ text: email.body_plain, html: email.body_html }, unsub);
  const html = `${body.html}\n<img src="${openPixelUrl(email.track_token)}" width="1" height="1" alt="" style="display:none">`;
  try {
    const raw = await buildMime({
      messageId,
      from: { email: email.from_email },
      to: { email: email.to.email, name: email.to.name },
      cc: email.cc,
      bcc: email.bcc,
      replyTo: email.reply_to ?? undefined,
      subject: email.subject,
      text: body.text,
      html,
      headers: unsubscribeHeaders(unsub),
      date: clock.now(),
    });
    const env = envelopeFor({ from: { email: email.from_email }, to: { email: email.to.email }, cc: email.cc, bcc: email.bcc });
    const out = await (deps.mailer ?? mailerFor(account.type)).send({ raw, from: env.from, to: [email.to.email], cc: email.cc, bcc: email.bcc });
    await transition(accountId, emailId, ['sending'], { status: 'sent', sent_at: nowIso(), updated_at: nowIso(), message_id: messageId, provider_message_id: out.providerMessageId });
    await recordSend(accountId, email.from_account, account.timezone, clock);
    await putMessageIdPointer(messageId, { account_id: accountId, email_id: emailId });
    if (out.providerMessageId) await putMessageIdPointer(`<${out.providerMessageId}>`, { account_id: accountId, email_id: emailId });
  } catch (e) {
    logger.error('send failed', { emailId, error: e as Error });
    await transition(accountId, emailId, ['sending'], { status: 'failed', updated_at: nowIso(), error: { code: 'send_failed', message: 'The mailbox provider did not accept the email.' } });
  }
}
