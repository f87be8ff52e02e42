import { createHash } from 'node:crypto';
import { handleInbound, type InboundOutcome } from './inbound-mail.js';
import { countMetric, flushMetrics } from '../core/metrics.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { getConnection, listActiveConnections, advanceCursor, type MailboxConnection } from '../mailboxes/mailboxes.repository.js';
import { SenderDisconnectedError, withMailbox, type SessionDeps } from '../mailboxes/mailbox-session.js';

/**
 * Replies and bounces land in the sender's own mailbox. Every connected mailbox is read from its cursor
 * (Gmail historyId, Graph deltaLink); each new message is handled on its own (shared/outreach/inbound-mail.ts
 * `handleInbound`): read, matched within this mailbox and its account, acted on. Then the cursor advances
 * by a conditional write.
 * - No message stalls a mailbox: one the message itself makes fail is recorded as unprocessable and passed.
 * - Nothing is lost: a failure of the service (DynamoDB unavailable) leaves the cursor where it was, so the
 *   next poll lists the messages again; the same message failing three times is unprocessable too.
 * - Nothing is doubled: a message handled again writes the same reply record (named after the mailbox and
 *   the provider's message id), and the lead and email transitions and counters are idempotent.
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
  let retry: unknown = null;
  for (const m of batch.messages) {
    try {
      outcomes[m.id] = await handleInbound(m.raw, { source: c.provider, addresses: [c.email], accountId: c.account_id, key: replyIdFor(c, m.id) }, clock);
    } catch (e) {
      // Tried again by the next poll (the cursor stays); the other messages are handled meanwhile.
      retry ??= e;
    }
  }
  if (retry) throw retry;
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
          countMetric('mailbox_polls_failed');
          logger.warn('mailbox poll failed', { eaId: c.ea_id, provider: c.provider, error: e as Error });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, connections.length) }, worker));
  await flushMetrics();
  return totals;
}
