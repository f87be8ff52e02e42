import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { InboundSchema, RawInboundSchema, type InboundOutcome } from '../outreach/inbound-mail.js';
import { addressOf } from '../outreach/inbound.js';
import { errorEnvelope, parseWith } from '../http/handler.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { listActiveConnections } from '../mailboxes/mailboxes.repository.js';
import { pollAllMailboxes, pollMailbox } from '../outreach/poll-mailboxes.js';
import type { MailProviderEmulator } from './oauth-emulator.js';
import { runAsFunction } from './function-context.js';
import { receiveBySes } from './ses-receiving.js';

/**
 * `POST /api/console/v1/dev/inbound/`: hands a received message over the way it arrives in AWS
 * (docs/decisions.md#the-local-stack). Two forms:
 * - `{mailbox, raw}`: an RFC 5322 message as text, received by the sending account whose address is `mailbox`;
 * - `{from, to, subject, text, in_reply_to, headers}`: composed into MIME first (received by `to`).
 * Either way the MIME travels the production path: into the emulated Gmail or Graph mailbox when `mailbox` is
 * connected there, found by the same history/delta poll as in AWS (the answer is that poll's outcome for
 * it); otherwise as SES receiving does: the raw object stored in the inbound bucket, then the inbound-mail
 * function, run by its S3 event.
 */
export type InboundDelivery = (body: unknown) => Promise<{ status: number; body: unknown }>;

let polling: Promise<unknown> = Promise.resolve();

/** Twin polls run one at a time (interval, settle, clock, dev/inbound), as one schedule's runs would. */
export function serialisedPoll<T>(run: () => Promise<T>): Promise<T> {
  const next = polling.then(run, run);
  polling = next.catch(() => undefined);
  return next;
}

export const pollMailboxesLocally = () =>
  serialisedPoll(() => runAsFunction('mailbox-poll', () => pollAllMailboxes())).catch((e: unknown) => {
    logger.warn('mailbox poll failed', { error: e as Error });
    return null;
  });

async function composeMime(msg: ReturnType<typeof InboundSchema.parse>): Promise<string> {
  const headers = Object.fromEntries(Object.entries(msg.headers).filter(([k]) => !['from', 'to', 'subject', 'in-reply-to'].includes(k.toLowerCase())));
  const inReplyTo = msg.in_reply_to ?? Object.entries(msg.headers).find(([k]) => k.toLowerCase() === 'in-reply-to')?.[1];
  const composer = new MailComposer({ from: msg.from, to: msg.to, subject: msg.subject, text: msg.text, ...(inReplyTo ? { inReplyTo } : {}), headers });
  return (await composer.compile().build()).toString('utf8');
}

const NOTHING: InboundOutcome = { matched: false, classification: null, email_id: null, counted_as_lead_reply: false };

/** The sender of a raw message for the SES envelope (its Return-Path, else From), '' when it names none. */
function envelopeSender(raw: string): string {
  const head = raw.slice(0, Math.max(0, raw.search(/\r?\n\r?\n/)) || 64_000).slice(0, 64_000);
  const header = (name: string) => new RegExp(`^${name}:[ \\t]*(.{0,998})`, 'im').exec(head)?.[1] ?? '';
  return addressOf(header('return-path')) || addressOf(header('from'));
}

export function devInbound(emulator: MailProviderEmulator | null): InboundDelivery {
  return async (body) => {
    try {
      const isRaw = typeof body === 'object' && body !== null && ('raw' in body || 'mailbox' in body);
      const { mailbox, raw } = isRaw
        ? parseWith(RawInboundSchema, body)
        : await (async () => {
            const msg = parseWith(InboundSchema, body);
            return { mailbox: addressOf(msg.to), raw: await composeMime(msg) };
          })();
      const to = mailbox.toLowerCase();
      // Every workspace that connected this mailbox reads it, as its own poll would.
      const connections = emulator?.mailbox(to) ? (await listActiveConnections()).filter((c) => c.email === to) : [];
      if (!emulator || connections.length === 0) {
        // No connected mailbox: the message arrives by SES receiving (stored, then the inbound-mail function).
        const outcomes = await receiveBySes(Buffer.from(raw, 'utf8'), { from: envelopeSender(raw), to: [to] });
        return { status: 202, body: outcomes[0] ?? NOTHING };
      }
      const outcome = await serialisedPoll(async () => {
        const id = emulator.deliver(to, raw);
        let found: InboundOutcome | undefined;
        let failed = false;
        for (const c of connections) {
          // A poll that fails keeps its cursor, as in AWS: the message is read again by the next poll.
          const polled = id ? await runAsFunction('mailbox-poll', () => pollMailbox(c.ea_id)).catch((e: unknown) => void logger.warn('mailbox poll failed', { eaId: c.ea_id, error: e as Error })) : undefined;
          if (id && polled === undefined) failed = true;
          const mine = polled?.outcomes[id!];
          if (!found || (mine?.matched && !found.matched)) found = mine;
        }
        return found ?? (failed ? { ...NOTHING, poll_failed: true } : undefined);
      });
      return { status: 202, body: outcome ?? NOTHING };
    } catch (e) {
      if (e instanceof AppError) return { status: e.statusCode, body: errorEnvelope(e) };
      throw e;
    }
  };
}
