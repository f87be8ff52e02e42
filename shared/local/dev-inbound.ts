import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { InboundSchema, receiveInbound, type InboundOutcome } from '../outreach/inbound-mail.js';
import { addressOf } from '../outreach/inbound.js';
import { errorEnvelope, parseWith } from '../http/handler.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { listActiveConnections } from '../mailboxes/mailboxes.repository.js';
import { pollAllMailboxes, pollMailbox } from '../outreach/poll-mailboxes.js';
import type { MailProviderEmulator } from './oauth-emulator.js';
import { runAsFunction } from './function-context.js';

/**
 * `POST /api/console/v1/dev/inbound/`: hands a received message over the way a mailbox provider would
 * (docs/decisions.md#the-local-stack). Addressed to a mailbox connected through the emulated OAuth flow, the message is put
 * into that emulated Gmail or Graph mailbox as MIME and found by the same history/delta poll as in AWS;
 * the answer is that poll's outcome for it. Any other address goes straight to the inbox.
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
  const composer = new MailComposer({ from: msg.from, to: msg.to, subject: msg.subject, text: msg.text, ...(msg.in_reply_to ? { inReplyTo: msg.in_reply_to } : {}), headers });
  return (await composer.compile().build()).toString('utf8');
}

export function devInbound(emulator: MailProviderEmulator | null): InboundDelivery {
  return async (body) => {
    try {
      const msg = parseWith(InboundSchema, body);
      const to = addressOf(msg.to);
      // Every workspace that connected this mailbox reads it, as its own poll would.
      const connections = emulator?.mailbox(to) ? (await listActiveConnections()).filter((c) => c.email === to) : [];
      // No connected mailbox: the message arrives by SES receiving, whose function matches and classifies it.
      if (!emulator || connections.length === 0) return { status: 202, body: await runAsFunction('inbound-mail', () => receiveInbound(msg)) };
      const raw = await composeMime(msg);
      const outcome = await serialisedPoll(async () => {
        const id = emulator.deliver(to, raw);
        let found: InboundOutcome | undefined;
        for (const c of connections) {
          const polled = id ? (await runAsFunction('mailbox-poll', () => pollMailbox(c.ea_id)))?.outcomes[id] : undefined;
          if (!found || (polled?.matched && !found.matched)) found = polled;
        }
        return found;
      });
      return { status: 202, body: outcome ?? { matched: false, classification: null, email_id: null, counted_as_lead_reply: false } };
    } catch (e) {
      if (e instanceof AppError) return { status: e.statusCode, body: errorEnvelope(e) };
      throw e;
    }
  };
}
