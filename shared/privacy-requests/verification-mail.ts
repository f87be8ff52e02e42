import { randomUUID } from 'node:crypto';
import { sesMailer, type Mailer } from '../adapters/mailer.js';
import { MailRefusedError } from '../adapters/mail-refused.js';
import { AppError } from '../core/errors.js';
import { isLocalMode, optionalEnv } from '../core/env.js';
import { logger } from '../core/logger.js';
import { buildMime } from '../outreach/mime.js';
import { escapeHtml } from '../outreach/plain-html.js';
import { privacyPageUrl } from '../privacy/page-url.js';
import type { PrivacyRequestKind } from './requests.repository.js';

/**
 * The verification message of a privacy request (docs/privacy.md): the service's own mail, not an account's, sent
 * through SES as the service sends (shared/adapters/mailer.ts; on the twin the SES stand-in, whose messages the
 * dev mailbox shows). It carries the single-use link to the privacy page, `<PRIVACY_PAGE_URL>?token=<token>`,
 * and nothing about what the directory holds: the same message whether or not the address is known.
 *
 * From `PRIVACY_MAIL_FROM`: the stack sets it from its SES identities (`privacy@<the first domain identity>`),
 * the sending identities the mail binding may send from. On the twin, `privacy@service.localhost` unless set. A
 * deployment without one cannot send the link and answers 503 `unavailable` to every request alike.
 */
const LOCAL_SENDER = 'privacy@service.localhost';
const SENDER_NAME = 'Privacy requests';

export function privacyMailFrom(): string {
  const configured = optionalEnv('PRIVACY_MAIL_FROM') ?? (isLocalMode() ? LOCAL_SENDER : undefined);
  if (!configured) throw new AppError(503, 'unavailable', 'Privacy requests are not configured for this deployment: it has no sender address.', undefined, true);
  return configured;
}

const WHAT: Record<PrivacyRequestKind, { subject: string; asked: string; confirm: string }> = {
  access: {
    subject: 'Your request to see the data held about you',
    asked: 'to see the data this service holds about this address',
    confirm: 'The page shows what is held.',
  },
  opt_out: {
    subject: 'Confirm your opt-out',
    asked: 'that this address and the person it belongs to be left out of every search, enrichment and outreach of this service',
    confirm: 'The page shows what is held, and nothing changes until you press its confirm button.',
  },
  erase: {
    subject: 'Confirm the erasure of your data',
    asked: 'that the data this service holds about this address be erased, and that the address be left out of every search, enrichment and outreach from now on',
    confirm: 'The page shows what is held, and nothing is erased until you press its confirm button.',
  },
};

/** The text and HTML of the message (exported for tests). */
export function verificationMessage(request: PrivacyRequestKind, email: string, link: string): { subject: string; text: string; html: string } {
  const w = WHAT[request];
  const text = [
    'Hello,',
    '',
    `Someone (we hope you) asked ${w.asked}: ${email}.`,
    '',
    `Open this link within 24 hours to continue. ${w.confirm} The link works once.`,
    link,
    '',
    'If you did not ask for this, ignore this message: nothing happens without the link.',
    '',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>Someone (we hope you) asked ${escapeHtml(w.asked)}: ${escapeHtml(email)}.</p>`,
    `<p>Open this link within 24 hours to continue. ${escapeHtml(w.confirm)} The link works once.</p>`,
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    '<p>If you did not ask for this, ignore this message: nothing happens without the link.</p>',
  ].join('\n');
  return { subject: w.subject, text, html };
}

/**
 * Mail the link. A refusal by SES (it accepted nothing: a malformed or suppressed recipient, sending paused) is
 * logged and swallowed, so the caller answers as for any other address; any other failure may have sent the
 * message and is thrown.
 */
export async function sendVerificationMail(input: { email: string; request: PrivacyRequestKind; token: string; now: Date }, mailer: Mailer = sesMailer): Promise<void> {
  const from = privacyMailFrom();
  const to = input.email.trim();
  const { subject, text, html } = verificationMessage(input.request, to, privacyPageUrl(input.token));
  const raw = await buildMime({
    messageId: `<${randomUUID()}@${from.slice(from.lastIndexOf('@') + 1)}>`,
    from: { email: from, name: SENDER_NAME },
    to: { email: to },
    cc: [],
    bcc: [],
    subject,
    text,
    html,
    // Automatic mail (RFC 3834): autoresponders should not answer it.
    headers: { 'Auto-Submitted': 'auto-generated' },
    date: input.now,
  });
  try {
    await mailer.send({ raw, from, to: [to], cc: [], bcc: [] });
  } catch (e) {
    if (!(e instanceof MailRefusedError)) throw e;
    logger.warn('privacy request verification mail refused', { reason: e.message });
  }
}
