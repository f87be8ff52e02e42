import { createHash } from 'node:crypto';
import { receiveRawInbound, type InboundOutcome } from './inbound-mail.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { getConnection, listActiveConnections, advanceCursor, type MailboxConnection } from '../mailboxes/mailboxes.repository.js';
import { SenderDisconnectedError, withMailbox, type SessionDeps } from '../mailboxes/mailbox-session.js';

/**
 * Replies and bounces land in the sender's own mailbox. Every connected mailbox is read from its cursor
 * (Gmail historyId, Graph deltaLink); each new message goes through the same matching and classification
 * as any inbound mail (reply, auto-reply, bounce), then the cursor advances by a conditional write.
 * Nothing is lost: the cursor moves only after every listed message was handled. Nothing is doubled: a
 * message handled by a poll that died before its cursor write is listed again and writes the same reply
 * record (named after the provider's message id), and the lead and email transitions are idempotent.
 */
export interface MailboxPollResult {
  ea_id: string;
  messages: number;
  resynced: boolean;
  advanced: boolean;
  outcomes: Record<string, InboundOutcome>;
}

export interface PollDeps extends SessionDeps {
  clock?: Clock;
  /** Between handling the messages and moving the cursor (tests stop a poll there, as a crash would). */
  beforeAdvance?: () => Promise<void>;
}

/**
 * Named after the mailbox (provider and address) rather than the sending account: two workspaces that
 * connected the same mailbox both list its messages, and a reply must still be recorded once.
 */
export function replyIdFor(c: Pick<MailboxConnection, 'provider' | 'email'>, providerMessageId: string): string {
  return createHash('sha256').update(`${c.provider}\u0000${c.email.toLowerCase()}\u0000${providerMessageId}`).digest('hex').slice(0, 26);
}

export async function pollConnection(c: MailboxConnection, deps: PollDeps = {}): Promise<MailboxPollResult> {
  const clock = deps.clock ?? serviceClock;
  const batch = await withMailbox(c, (api) => api.listNewMessages(c.cursor), deps);
  const outcomes: Record<string, InboundOutcome> = {};
  for (const m of batch.messages) {
    outcomes[m.id] = await receiveRawInbound(m.raw, clock, replyIdFor(c, m.id));
  }
  await deps.beforeAdvance?.();
  const advanced = batch.cursor === c.cursor || (await advanceCursor(c.ea_id, c.cursor_rev, batch.cursor));
  return { ea_id: c.ea_id, messages: batch.messages.length, resynced: batch.resynced, advanced, outcomes };
}

export async function pollMailbox(eaId: string, deps: PollDeps = {}): Promise<MailboxPollResult | null> {
  const c = await getConnection(eaId);
  return c?.status === 'active' ? pollConnection(c, deps) : null;
}

const CONCURRENCY = 8;

/** One run of the schedule: every active mailbox, a few at a time; one mailbox's failure is logged, not fatal. */
export async function pollAllMailboxes(deps: PollDeps = {}): Promise<{ mailboxes: number; messages: number; failed: number; disconnected: number }> {
  const connections = await listActiveConnections();
  const totals = { mailboxes: connections.length, messages: 0, failed: 0, disconnected: 0 };
  let next = 0;
  const worker = async () => {
    while (next < connections.length) {
      const c = connections[next++]!;
      try {
        totals.messages += (await pollConnection(c, deps)).messages;
      } catch (e) {
        if (e instanceof SenderDisconnectedError) totals.disconnected += 1;
        else {
          totals.failed += 1;
          logger.warn('mailbox poll failed', { eaId: c.ea_id, provider: c.provider, error: e as Error });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, connections.length) }, worker));
  return totals;
}
