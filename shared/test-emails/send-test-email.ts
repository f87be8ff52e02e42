import { randomUUID } from 'node:crypto';
import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { getSendingAccount } from '../accounts/sending-accounts.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import type { Mailer } from '../adapters/mailer.js';
import { mailerFor } from '../mailboxes/mailbox-mailer.js';
import { MailRefusedError } from '../adapters/mail-refused.js';
import { SenderDisconnectedError } from '../mailboxes/mailbox-session.js';
import { awsScheduler, scheduleName, type Scheduler } from '../adapters/scheduler.js';
import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { DEADLINES, after, nextLook, type SweepAction } from '../catalog/deadlines.js';
import { buildMime } from '../outreach/mime.js';
import { htmlToPlain } from '../core/html.js';
import { escapeHtml } from '../outreach/plain-html.js';
import { testEmailBanner } from './config.js';
import { IN_FLIGHT_MS, type TestEmailError, type TestEmailRecord } from './model.js';
import { getTestEmail, readAttachmentBytes, transitionTestEmail } from './test-emails.repository.js';

/**
 * The single attempt of a test email (docs/decisions.md#test-emails-pilot states):
 * `queued` → `sending` (claimed once, conditionally) → `sent`; → `failed` only when nothing can have left
 * (the message could not be built, or the sending service refused it); → `unknown` when the send was
 * interrupted (timeout, reset connection, server fault); still `sending` after IN_FLIGHT_MS → `unknown` (an EventBridge Scheduler timer, the sweeper as a backstop); `unknown` → `sent`
 * when the attempt completes later. Nothing here ever sends a test email a second time.
 */
export interface SendTestEmailDeps {
  clock?: Clock;
  mailer?: Mailer;
  scheduler?: Scheduler;
}

/** Why a snapshotted sender can no longer send: it is gone, unusable, or no longer the one snapshotted. */
function senderProblem(record: TestEmailRecord, sender: SendingAccount | null): TestEmailError | null {
  if (!sender) return { code: 'sender_unavailable', message: 'The sending account no longer exists; no other sender is chosen.' };
  if (sender.email.toLowerCase() !== record.from_email.toLowerCase() || sender.type !== record.from_type) {
    return { code: 'sender_changed', message: 'The sending account changed after the test was created; no other sender is chosen.' };
  }
  if (!sender.connected || !sender.sending_enabled) return { code: 'sender_unavailable', message: 'The sending account is not connected or not enabled for sending.' };
  return null;
}

/** The `failed` error of a send the sending service refused (nothing left); null when it may have left. */
function sendFailure(error: unknown): TestEmailError | null {
  if (error instanceof SenderDisconnectedError) return { code: 'sender_disconnected', message: 'The sending account was disconnected (access revoked); nothing was sent.' };
  if (error instanceof MailRefusedError) return { code: 'send_failed', message: 'The sending service refused the email; nothing was sent.' };
  return null;
}

export const timeoutScheduleName = (id: string) => scheduleName('test-email', id);

/** The message as the inbox receives it: the body, then the saved signature, then the pilot banner. */
export async function composeTestEmail(record: TestEmailRecord): Promise<{ html: string; text: string }> {
  const banner = testEmailBanner();
  const signatureHtml = record.signature_html ? `\n<div>${record.signature_html}</div>` : '';
  const signatureText = record.signature_html ? `\n\n${await htmlToPlain(record.signature_html)}` : '';
  return {
    html: `${record.body_html}${signatureHtml}\n<hr>\n<p>${escapeHtml(banner)}</p>`,
    text: `${record.body_text.replace(/\s+$/, '')}${signatureText}\n\n--\n${banner}\n`,
  };
}

export async function sendTestEmail(accountId: string, id: string, deps: SendTestEmailDeps = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const record = await getTestEmail(accountId, id);
  // Anything past `queued` has had its one attempt: a redelivered or replayed message starts nothing.
  if (record?.status !== 'queued') return;
  const nowIso = () => clock.now().toISOString();

  const sender = await getSendingAccount(accountId, record.from_account, clock);
  const problem = senderProblem(record, sender);
  if (problem) {
    await transitionTestEmail(accountId, id, ['queued'], { status: 'failed', updated_at: nowIso(), error: problem }, { due: null });
    return;
  }

  const attempt = randomUUID();
  const claimedAt = clock.now();
  const claimed = await transitionTestEmail(
    accountId,
    id,
    ['queued'],
    { status: 'sending', updated_at: claimedAt.toISOString(), claimed_at: claimedAt.toISOString(), send_attempt: attempt },
    // The timer ends the in-flight time; the sweeper looks a grace later in case the timer was lost.
    { due: after(claimedAt, IN_FLIGHT_MS + DEADLINES.DISPATCH_GRACE_MS) },
  );
  if (!claimed) return;
  try {
    await (deps.scheduler ?? awsScheduler).scheduleAt(timeoutScheduleName(id), after(claimedAt, IN_FLIGHT_MS), messages.testEmailTimeout(accountId, id));
  } catch (error) {
    logger.error('test email timeout not scheduled; the sweeper ends the in-flight time', { testEmailId: id, error: error as Error });
  }

  const domain = claimed.from_email.split('@')[1] ?? 'localhost';
  const internetMessageId = `<${id}@${domain}>`;
  const fail = (error: TestEmailError) => transitionTestEmail(accountId, id, ['sending'], { status: 'failed', updated_at: nowIso(), error }, { attempt, due: null });
  let raw: Buffer;
  try {
    const bytes = await readAttachmentBytes(claimed);
    const body = await composeTestEmail(claimed);
    raw = await buildMime({
      messageId: internetMessageId,
      from: { email: claimed.from_email },
      to: { email: claimed.to },
      cc: [],
      bcc: [],
      subject: claimed.subject,
      text: body.text,
      html: body.html,
      headers: {},
      date: claimedAt,
      attachments: claimed.attachments.map((a, i) => ({ filename: a.filename, contentType: a.content_type, content: bytes[i]! })),
    });
  } catch (error) {
    // Nothing was handed to the sending service yet.
    logger.error('test email could not be prepared', { testEmailId: id, error: error as Error });
    await fail({ code: 'send_failed', message: 'The email could not be prepared for sending; nothing was sent.' });
    return;
  }
  let providerMessageId: string;
  try {
    const out = await (deps.mailer ?? mailerFor(sender!)).send({ raw, from: claimed.from_email, to: [claimed.to], cc: [], bcc: [] });
    providerMessageId = out.providerMessageId;
  } catch (error) {
    logger.error('test email send failed', { testEmailId: id, error: error as Error });
    const outcome = sendFailure(error);
    if (outcome) await fail(outcome);
    // Interrupted (a timeout, a reset connection, a server fault): the email may have left, so `unknown`, never
    // `failed`, which would invite a retry with a new key and a duplicate in the test inbox.
    else await transitionTestEmail(accountId, id, ['sending'], { status: 'unknown', updated_at: nowIso() }, { attempt, due: null });
    return;
  }
  const sentAt = nowIso();
  const sent = await transitionTestEmail(
    accountId,
    id,
    ['sending', 'unknown'],
    { status: 'sent', sent_at: sentAt, updated_at: sentAt, message_id: providerMessageId || null, internet_message_id: internetMessageId },
    { attempt, due: null },
  );
  if (!sent) logger.error('a test email was sent but its outcome could not be recorded', { testEmailId: id });
}

/** In flight for IN_FLIGHT_MS without an outcome: `unknown`, never resent. False when it is not (yet) so. */
export async function endInFlightTestEmail(accountId: string, id: string, clock: Clock = serviceClock, force = false): Promise<boolean> {
  const record = await getTestEmail(accountId, id);
  if (record?.status !== 'sending') return false;
  if (!force && after(record.claimed_at ?? record.updated_at, IN_FLIGHT_MS).getTime() > clock.now().getTime()) return false;
  const moved = await transitionTestEmail(accountId, id, ['sending'], { status: 'unknown', updated_at: clock.now().toISOString() }, { attempt: record.send_attempt, due: null });
  return moved !== null;
}

/**
 * A send message that gave up on every receive: a claimed record may have been sent (`unknown`), a queued one
 * was not (`failed`).
 */
export async function endDeadTestEmailSend(accountId: string, id: string, clock: Clock = serviceClock): Promise<void> {
  const record = await getTestEmail(accountId, id);
  if (record?.status === 'sending') await endInFlightTestEmail(accountId, id, clock, true);
  else if (record?.status === 'queued') {
    await transitionTestEmail(accountId, id, ['queued'], { status: 'failed', updated_at: clock.now().toISOString(), error: { code: 'send_failed', message: 'The test email could not be sent.' } }, { due: null });
  }
}

/**
 * A test email found on the due index: `queued` past the dispatch grace lost its message (sent again);
 * `sending` past its in-flight time lost its timer (`unknown`); anything else leaves the index.
 */
export async function sweepTestEmail(accountId: string, id: string, clock: Clock = serviceClock): Promise<SweepAction> {
  const record = await getTestEmail(accountId, id);
  if (!record) return 'none';
  const now = clock.now();
  switch (record.status) {
    case 'queued': {
      await sendMessage('sending', messages.sendTestEmail(accountId, id));
      await transitionTestEmail(accountId, id, ['queued'], {}, { due: nextLook(now, record.created_at) });
      return 'redriven';
    }
    case 'sending': {
      if (await endInFlightTestEmail(accountId, id, clock)) return 'ended';
      await transitionTestEmail(accountId, id, ['sending'], {}, { due: after(record.claimed_at ?? record.updated_at, IN_FLIGHT_MS + DEADLINES.DISPATCH_GRACE_MS) });
      return 'postponed';
    }
    default:
      await transitionTestEmail(accountId, id, [record.status], {}, { due: null });
      return 'cleared';
  }
}
