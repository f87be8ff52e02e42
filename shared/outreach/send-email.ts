import { getSendingAccount, recordSend } from '../accounts/sending-accounts.repository.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { optionalEnv } from '../core/env.js';
import type { Mailer, SentMail } from '../adapters/mailer.js';
import { mailerFor } from '../mailboxes/mailbox-mailer.js';
import { SenderDisconnectedError } from '../mailboxes/mailbox-session.js';
import { sendMessage } from '../adapters/queue.js';
import { claimCopy, getEmail, sentPointerWrites, settleCopy, transition, transitionClaimed } from './emails.repository.js';
import { messages } from '../catalog/messages.js';
import { getLead, isSuppressed, leadSentWrite } from './leads.repository.js';
import { onStepSent, stepEndedUnsent, stepSentWrites } from '../sequences/cadence.js';
import type { Scheduler } from '../adapters/scheduler.js';
import { appendUnsubscribeFooter, buildMime, unsubscribeHeaders } from './mime.js';
import { privacyPageUrl } from '../privacy/page-url.js';
import { isOptedOut, optedOutAddresses, recordEmailed } from '../privacy/opt-outs.repository.js';
import { copyAddresses, planMessages, type PlannedMessage } from './copies.js';
import { releaseSlot } from './send-slots.repository.js';
import { counterWrite } from './deliverability.repository.js';
import { capacityOf } from './sending-capacity.js';
import { scheduleSend } from './schedule-send.js';
import { logger } from '../core/logger.js';
import { QUEUES } from '../catalog/queues.js';
import { randomUUID } from 'node:crypto';
import type { EmailRecord } from './model.js';

/**
 * The send worker. At the slot it re-checks everything (still queued, the recipient has not opted out of all
 * outreach (then `cancelled`), replied, bounced or unsubscribed, the account still connected and enabled), claims the email (`queued` →
 * `sending`, once), builds proper MIME (plain + HTML, cc, reply-to, Message-ID, unsubscribe link and
 * header, the privacy page's link, open pixel) and hands the lead's message to the mailer. `sent` with `sent_at`, or `failed` with
 * `error`. BCC recipients (and, on SES and SMTP, the CC recipients) get their own copies after that,
 * without the lead's link and pixel; on Gmail and Graph the CC recipients are on the lead's message
 * (copies.ts). A CC or BCC address on the suppression list gets nothing.
 *
 * A redelivered message never sends twice: only the claim's winner sends, and an email found already in
 * `sending` (a crash between claim and record) is marked failed as "may have been sent", never resent.
 */
/** A redelivery found the email mid-send, inside the live attempt's lease: retried later, never sent twice. */
export class SendInProgressError extends Error {
  constructor(emailId: string) {
    super(`email ${emailId} is being sent by a live attempt`);
    this.name = 'SendInProgressError';
  }
}

export function publicBaseUrl(): string {
  return (optionalEnv('PUBLIC_BASE_URL') ?? 'http://localhost:3000').replace(/\/$/, '');
}

export const unsubscribeUrl = (token: string) => `${publicBaseUrl()}/api/public/v1/u/${token}/`;
export const openPixelUrl = (token: string) => `${publicBaseUrl()}/api/public/v1/o/${token}/`;

/** Timer target: the slot has come; hand the email to the sending queue. */
export async function sendDue(accountId: string, emailId: string): Promise<void> {
  await sendMessage('sending', messages.sendEmail(accountId, emailId));
}

/**
 * How long a claimed send may take before a redelivery may judge it dead: the sending worker's timeout plus
 * a margin. A redelivery inside the lease leaves the live attempt alone (and is retried after the queue's
 * visibility timeout); one after it fails the email as "may have been sent", never resending it.
 */
export const SEND_LEASE_MS = (QUEUES.sending.worker.timeoutSeconds + 5) * 1000;

/**
 * A send whose attempt died after its claim (lease expired): the provider may or may not have accepted it,
 * so it is `failed` as "may have been sent" and never sent again. `sending` leads only to a terminal state,
 * so no newer claim can be overwritten here.
 */
export async function failInterruptedSend(email: EmailRecord, clock: Clock = serviceClock): Promise<boolean> {
  const failed = await transition(email.account_id, email.id, ['sending'], {
    status: 'failed',
    updated_at: clock.now().toISOString(),
    error: { code: 'send_interrupted', message: 'The send was interrupted; the email may have been sent, so it is not retried.' },
  });
  if (failed?.sequence_id) await stepEndedUnsent(failed, 'send_interrupted', { clock });
  return failed !== null;
}

export async function sendEmail(accountId: string, emailId: string, deps: { clock?: Clock; mailer?: Mailer; nowMs?: () => number; scheduler?: Scheduler } = {}): Promise<void> {
  const clock = deps.clock ?? serviceClock;
  const wallNow = deps.nowMs ?? Date.now;
  const email = await getEmail(accountId, emailId);
  if (!email) return;
  const nowIso = () => clock.now().toISOString();
  if (email.status === 'sending') {
    if ((email.send_lease_until_ms ?? 0) > wallNow()) throw new SendInProgressError(emailId);
    await failInterruptedSend(email, clock);
    return;
  }
  if (email.status === 'sent' || email.status === 'replied') {
    // A redelivery after a crash between the send's record and the privacy record makes it again (idempotent).
    if (email.sent_at) await recordEmailed(email.to.email, accountId, email.sent_at);
    return resumeCopies(email, { clock, mailer: deps.mailer, nowMs: wallNow });
  }
  if (email.status !== 'queued') return;
  if (email.scheduled_for && new Date(email.scheduled_for).getTime() > clock.now().getTime() + 1000) return; // rescheduled later

  const fail = async (code: string, message: string, status: 'failed' | 'cancelled' = 'failed') => {
    const moved = await transition(accountId, emailId, ['queued'], { status, updated_at: nowIso(), error: { code, message } });
    if (moved && email.slot_day) await releaseSlot(email.from_account, email.slot_day);
    if (moved && email.sequence_id) await stepEndedUnsent(email, code, { clock, scheduler: deps.scheduler });
  };
  // The opt-out of every account's outreach (a privacy request, docs/privacy.md) is read beside the lead: an email
  // queued before it is cancelled here, unsent, and a sequence step ends its enrollment as an unsubscribe does.
  const [lead, optedOut] = await Promise.all([getLead(accountId, email.to.email), isOptedOut({ email: email.to.email })]);
  if (optedOut) return fail('opted_out', 'The recipient opted out of all outreach through this service.', 'cancelled');
  if (lead?.replied_at) return fail('recipient_replied', 'The recipient has replied; further sends to them are stopped.', 'cancelled');
  if (lead?.bounced_at) return fail('recipient_bounced', 'An earlier email to this recipient bounced.');
  if (await isSuppressed(accountId, email.to.email)) return fail('unsubscribed', 'The recipient has unsubscribed.');
  const account = await getSendingAccount(accountId, email.from_account, clock);
  if (!account || !account.connected || !account.sending_enabled) {
    return fail('sender_unavailable', 'The sending account is not connected or not enabled for sending.');
  }
  // Never past today's effective limit: a throttle or pause that came after the booking moves the email to the
  // first later day with room (booked before its old day's slot is given back, so today stays full).
  const { account: effective } = await capacityOf(account, clock);
  if (account.sent_today >= effective.daily_limit) {
    logger.info('daily limit reached at send time; booking a later day', { emailId, limit: effective.daily_limit, health: effective.health });
    await scheduleSend(email, 'now', undefined, { clock, scheduler: deps.scheduler });
    if (email.slot_day) await releaseSlot(email.from_account, email.slot_day);
    return;
  }

  // Who gets what is decided before the claim, so the claim can record who gets the lead's token. The
  // recipients (`to`, `cc`, `bcc`) are fixed when the email is created: no edit changes them.
  const mailer = deps.mailer ?? mailerFor(account);
  const plan = planMessages(email, mailer.envelopeDelivery === true, await suppressedAmong(accountId, copyAddresses(email)));
  const sharedWith = plan[0]!.sharedWith.map((a) => a.trim().toLowerCase());

  // The claim returns the record as claimed: what is sent is what was queued at the claim, never an older
  // read (a PATCH that landed before the claim is in it; none can land after, edits need `queued`).
  const attemptId = randomUUID();
  // Due when the lease ends: a crash mid-send is then judged by the sweeper, never retried blind.
  const claimed = await transition(
    accountId,
    emailId,
    ['queued'],
    // `shared_with` is written before the message can go out, so even a send that dies after the handover
    // leaves its link offering the CC recipients their own addresses rather than the lead's alone.
    { status: 'sending', updated_at: nowIso(), send_attempt: attemptId, send_lease_until_ms: wallNow() + SEND_LEASE_MS, ...(sharedWith.length ? { shared_with: sharedWith } : {}) },
    [],
    { due: new Date(clock.now().getTime() + SEND_LEASE_MS) },
  );
  if (!claimed) return;

  const messageId = `<${emailId}.${claimed.track_token.slice(0, 8)}@${domainOf(claimed)}>`;
  // Only the attempt that holds the claim may record its outcome.
  const ours = { ':attempt': attemptId };
  let out: SentMail;
  try {
    out = await sendPlanned(claimed, plan[0]!, mailer, messageId, clock);
  } catch (e) {
    logger.error('send failed', { emailId, error: e as Error });
    // A revoked mailbox fails its send; picking another account would send from an address nobody chose.
    const disconnected = e instanceof SenderDisconnectedError;
    const failed = await transitionClaimed(accountId, emailId, ours, {
      status: 'failed',
      updated_at: nowIso(),
      error: disconnected
        ? { code: 'sender_disconnected', message: 'The sending account was disconnected (access revoked); reconnect it and send again.' }
        : { code: 'send_failed', message: 'The mailbox provider did not accept the email.' },
    });
    if (failed?.sequence_id) await stepEndedUnsent(failed, disconnected ? 'sender_disconnected' : 'send_failed', { clock, scheduler: deps.scheduler });
    return;
  }
  const sentAt = clock.now();
  // Every id a reply may quote: ours, the one the recipient saw if the provider replaced it, the provider's own.
  const seen = out.messageId && out.messageId.toLowerCase() !== messageId.toLowerCase() ? [out.messageId] : [];
  const messageIds = [messageId, ...seen, ...(out.providerMessageId ? [`<${out.providerMessageId}>`] : []), ...(out.recipientMessageIds ?? [])];
  const sent = await transitionClaimed(
    accountId,
    emailId,
    ours,
    {
      status: 'sent',
      sent_at: sentAt.toISOString(),
      updated_at: sentAt.toISOString(),
      message_id: seen[0] ?? messageId,
      provider_message_id: out.providerMessageId,
      ...(out.threadId ? { thread_id: out.threadId } : {}),
      // The copies go out after the lead's copy is recorded: a redelivery finds them here, never the lead's.
      ...(plan.length > 1 ? { copies: Object.fromEntries(plan.slice(1).map((m) => [m.key, 'due'])) } : {}),
    },
    // The lead's last send (sequence eligibility) and a sequence's next step, threaded on the Message-ID the
    // recipient saw, are recorded with the send itself.
    [...sentPointerWrites(claimed, messageIds, sentAt), leadSentWrite(accountId, claimed.to.email, sentAt), counterWrite(claimed.from_account, 'sent', sentAt), ...(claimed.sequence_id ? await stepSentWrites(claimed, seen[0] ?? messageId, sentAt, out.threadId ?? claimed.thread_id) : [])],
  );
  if (!sent) {
    // The claim was taken from this attempt (judged dead after its lease): its outcome is not ours to write.
    logger.error('a send completed after its claim was lost; nothing recorded', { emailId });
    return;
  }
  await recordSend(accountId, claimed.from_account, account.timezone, clock);
  // Which accounts emailed an address, for the owner's access request (hashes only; keeps the latest instant).
  await recordEmailed(claimed.to.email, accountId, sentAt.toISOString());
  if (sent.sequence_id) await onStepSent(sent, { clock, scheduler: deps.scheduler });
  if (plan.length > 1) await sendCopies(sent, mailer, { clock, nowMs: wallNow });
}

const domainOf = (e: EmailRecord) => e.from_email.split('@')[1] ?? 'localhost';

/**
 * The given addresses that are on the workspace's suppression list (unsubscribed, hard bounce, complaint) or whose
 * owner opted out of every account's outreach (one privacy-table read for them all).
 */
async function suppressedAmong(accountId: string, addresses: string[]): Promise<(address: string) => boolean> {
  const [found, optedOut] = await Promise.all([
    Promise.all(addresses.map(async (a) => ((await isSuppressed(accountId, a)) ? [a.trim().toLowerCase()] : []))),
    optedOutAddresses(addresses),
  ]);
  const set = new Set([...found.flat(), ...[...optedOut].map((a) => a.trim().toLowerCase())]);
  return (address) => set.has(address.trim().toLowerCase());
}

/**
 * Builds one planned message of `email` and hands it to the mailer; only the lead's message carries the
 * token's link, header and pixel. One-click unsubscribe (RFC 8058) only when the lead alone gets it: on a
 * message the CC recipients get too, the link's page asks whose address it is (tracking.ts).
 */
async function sendPlanned(email: EmailRecord, m: PlannedMessage, mailer: Mailer, messageId: string, clock: Clock): Promise<SentMail> {
  const unsub = unsubscribeUrl(email.track_token);
  const body = m.tracked ? appendUnsubscribeFooter({ text: email.body_plain, html: email.body_html }, unsub, privacyPageUrl()) : { text: email.body_plain, html: email.body_html };
  const html = m.tracked ? `${body.html}\n<img src="${openPixelUrl(email.track_token)}" width="1" height="1" alt="" style="display:none">` : body.html;
  const raw = await buildMime({
    messageId,
    from: { email: email.from_email },
    to: m.to,
    cc: m.cc,
    bcc: [],
    replyTo: email.reply_to ?? undefined,
    subject: email.subject,
    text: body.text,
    html,
    headers: m.tracked ? unsubscribeHeaders(unsub, { oneClick: m.sharedWith.length === 0 }) : {},
    date: clock.now(),
    // A follow-up step answers the earlier steps' thread.
    ...(email.in_reply_to ? { inReplyTo: email.in_reply_to, references: email.references ?? [email.in_reply_to] } : {}),
  });
  // A copy is not put into the provider's thread: on Graph that means answering the thread's newest message
  // (createReply), which is the lead's message; its In-Reply-To/References thread it for its recipients.
  return mailer.send({ raw, from: email.from_email.trim(), ...m.deliver, threadId: m.tracked ? (email.thread_id ?? null) : null });
}

/**
 * The copies of a sent email, one at a time, each claimed (`due` → `sending`, with a lease) before it is
 * handed over and recorded after. Never twice: a copy found `sending` after its lease belongs to an attempt
 * that died around the handover, so it is recorded `interrupted` and not resent; inside the lease the live
 * attempt is left alone (SendInProgressError, retried by the queue). A copy the provider refuses is `failed`;
 * the email stays `sent`, which is what the lead got. Only keys on the record are sent: on Gmail and Graph
 * the CC recipients were on the lead's message, so the record has no `cc` copy and none is ever sent.
 * A copy whose recipients were all suppressed since the lead's send stays `due` and goes to nobody.
 */
async function sendCopies(email: EmailRecord, mailer: Mailer | null, deps: { clock: Clock; nowMs: () => number }): Promise<void> {
  // Without a usable mailer every due copy fails; planning as an envelope engine names every possible key.
  const envelope = mailer ? mailer.envelopeDelivery === true : true;
  // Every key the email may have, whatever is suppressed; what is sent leaves suppressed addresses out.
  const live = new Map(planMessages(email, envelope, await suppressedAmong(email.account_id, copyAddresses(email))).map((m) => [m.key, m]));
  for (const { key } of planMessages(email, envelope).slice(1)) {
    const state = email.copies?.[key];
    if (state === 'sending') {
      if ((email.copy_lease_until_ms ?? 0) > deps.nowMs()) throw new SendInProgressError(email.id);
      await settleCopy(email.account_id, email.id, key, email.copy_attempt ?? '', 'interrupted');
      continue;
    }
    const m = live.get(key);
    if (state !== 'due' || !m) continue;
    const attempt = randomUUID();
    if (!(await claimCopy(email.account_id, email.id, m.key, attempt, deps.nowMs() + SEND_LEASE_MS))) continue;
    try {
      if (!mailer) throw new Error('the sending account is no longer usable');
      await sendPlanned(email, m, mailer, `<${email.id}.${m.key}@${domainOf(email)}>`, deps.clock);
    } catch (e) {
      logger.error('copy send failed', { emailId: email.id, copy: m.key, error: e as Error });
      await settleCopy(email.account_id, email.id, m.key, attempt, 'failed');
      continue;
    }
    await settleCopy(email.account_id, email.id, m.key, attempt, 'sent');
  }
}

/** A redelivery of a sent email's message: the copies its attempt did not finish (the lead's message is never sent again). */
async function resumeCopies(email: EmailRecord, deps: { clock: Clock; mailer?: Mailer; nowMs: () => number }): Promise<void> {
  if (!email.copies || !Object.values(email.copies).some((s) => s === 'due' || s === 'sending')) return;
  const account = await getSendingAccount(email.account_id, email.from_account, deps.clock);
  const usable = account && account.connected && account.sending_enabled;
  await sendCopies(email, deps.mailer ?? (usable ? mailerFor(account) : null), deps);
}
