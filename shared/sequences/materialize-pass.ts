import { sendMessage } from '../adapters/queue.js';
import { cancellationReasons, isTransactionCanceled } from '../adapters/dynamodb-errors.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { messages } from '../catalog/messages.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { logger } from '../core/logger.js';
import { newEmailWrites, undraftedEmailFields } from '../outreach/emails.repository.js';
import { leadUpsertWrite } from '../outreach/leads.repository.js';
import type { EmailRecord } from '../outreach/model.js';
import { contactName, type PendingEnrollment, type SequenceRecord } from './model.js';
import { newEnrollmentWrite, passMaterialized, pendingEnrollmentsOf, writeTogether } from './sequences.repository.js';
import { inBatches } from '../core/batches.js';

/**
 * Write the enrollments of a sequence's open pass (kept in its pending items, written before the transaction
 * that reserved its credits and took their enrollment locks, which records their pass id) and start their drafts. Each enrollment is one transaction:
 * the enrollment, every step's email (all `drafting`) and the lead; its ids were fixed at acceptance, so a
 * second run (the sweeper after a crash) finds the ones already written and only restarts their drafts, which
 * is harmless. A cancel that finds an enrollment not yet written puts a `cancelled` one in its place
 * (finishCancel), so a write arriving after the cancel finds it exists and writes nothing: its draft message
 * finds no step.
 *
 * Steps are drafted in order, each after the one before it (a follow-up refers to what was said), so only
 * step 0 is put on the drafting queue here; the later ones are due at the draft deadline, when the sweeper
 * fails them if a crash stopped the chain.
 */
const CONCURRENCY = 8;

function stepEmail(s: SequenceRecord, p: PendingEnrollment, step: number, iso: string): EmailRecord {
  const pass = s.pass!;
  return {
    id: p.email_ids[step]!,
    account_id: s.account_id,
    ...undraftedEmailFields(iso),
    contact: p.contact,
    to: { email: p.contact.email, name: contactName(p.contact) },
    from_account: pass.from_account,
    from_email: pass.from_email,
    reply_to: s.reply_to,
    cc: s.cc,
    bcc: s.bcc,
    review: pass.review,
    instructions: s.instructions,
    charge_id: pass.charge_id,
    timezone: pass.timezone,
    recipient_timezone: p.recipient_timezone,
    step,
    sequence_id: s.id,
    step_ids: p.email_ids,
  };
}

async function writeEnrollment(s: SequenceRecord, p: PendingEnrollment, now: Date): Promise<void> {
  const iso = now.toISOString();
  const writes = [
    newEnrollmentWrite({ sequence_id: s.id, account_id: s.account_id, contact: p.contact, status: 'drafting', email_ids: p.email_ids, pass_id: s.pass!.id, created_at: iso, updated_at: iso }),
    ...p.email_ids.flatMap((_, step) => newEmailWrites(stepEmail(s, p, step, iso), step === 0 ? after(now, DEADLINES.DISPATCH_GRACE_MS) : after(now, DEADLINES.DRAFT_MS))),
    leadUpsertWrite(s.account_id, p.contact, iso, p.recipient_timezone),
  ];
  try {
    await writeTogether(writes);
  } catch (e) {
    // The enrollment exists: an earlier run wrote it (and its steps) already.
    if (!(isTransactionCanceled(e) && cancellationReasons(e)[0]?.Code === 'ConditionalCheckFailed')) throw e;
  }
  await sendMessage('drafting', messages.draftEmail(s.account_id, p.email_ids[0]!));
}

export async function materializePass(s: SequenceRecord, clock: Clock = serviceClock, known?: PendingEnrollment[]): Promise<void> {
  if (!s.pass) return;
  // The inline run after acceptance knows the pass's pending enrollments; the sweeper reads them back.
  const pending = known ?? (await pendingEnrollmentsOf(s));
  const now = clock.now();
  await inBatches(pending, CONCURRENCY, (p) => writeEnrollment(s, p, now));
  // Every step is now due on its own; the sequence is looked at again only if the pass has not settled by then.
  await passMaterialized(s.account_id, s.id, s.pass.id, after(now, DEADLINES.DRAFT_MS + DEADLINES.DISPATCH_GRACE_MS));
}

/** The inline run right after acceptance: a failure leaves the sequence due, and the sweeper runs it again. */
export async function materializeOrLeaveToSweeper(s: SequenceRecord, pending: PendingEnrollment[], clock: Clock = serviceClock): Promise<void> {
  try {
    await materializePass(s, clock, pending);
  } catch (e) {
    logger.error('writing a pass of enrollments failed; the sweeper will finish it', { sequenceId: s.id, error: e as Error });
  }
}
