import type * as z from '../core/zod.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { contactAddresses, judgeContacts, noneEligible } from './eligibility.js';
import { materializeOrLeaveToSweeper } from './materialize-pass.js';
import { contactFacts, newSequenceWrite } from './sequences.repository.js';
import { newPass, pendingOf, reservePass, withPendingEnrollments } from './reserve-pass.js';
import { chooseSequenceSender } from './sequence-sender.js';
import type { PendingEnrollment, SequenceRecord } from './model.js';
import type { CreateSequenceSchema } from './schemas.js';

/**
 * POST /sequences/ — accept a sequence for drafting.
 *
 * 1. Take the time and the id together, before any await.
 * 2. Choose the sender (409 without a connected google or microsoft account; see sequence-sender.ts).
 * 3. Read what the outreach table knows of the contacts in one gathered call (contactFacts), and judge every
 *    contact on it (eligibility.ts); none eligible is 400 with each reason in the details.
 * 4. The pass's pending enrollments are written to items of their own (the sequence item stays small), then
 *    one transaction (reserve-pass.ts): reserve 2 credits × eligible contacts × steps, record the sequence
 *    (`drafting`) with its first pass, due within the dispatch grace, and take each contact's enrollment lock
 *    (a contact a concurrent create enrolled meanwhile is `already_in_automation`).
 * 5. Write the enrollments and start their drafts (materialize-pass.ts); a crash leaves it to the sweeper.
 */
export async function createSequence(accountId: string, body: z.output<typeof CreateSequenceSchema>, clock: Clock = serviceClock) {
  const now = clock.now();
  const iso = now.toISOString();
  const id = newId('sq', now.getTime());
  const sender = await chooseSequenceSender(accountId, body.from_account, body.reply_to, clock);
  const known = await contactFacts(accountId, contactAddresses(body.contacts));
  const judged = await judgeContacts(body.contacts, known, { accountId, sequenceId: id, enrolled: new Set(), now });
  if (judged.eligible.length === 0) throw noneEligible(judged.rejected);

  const pass = newPass(sender, body.review, null, now);
  const record = (pending: PendingEnrollment[]): SequenceRecord => ({
    id,
    account_id: accountId,
    name: body.name ?? null,
    status: 'drafting',
    created_at: iso,
    updated_at: iso,
    instructions: body.instructions,
    steps: body.steps,
    reply_to: body.reply_to ?? null,
    cc: body.cc,
    bcc: body.bcc,
    contacts: pending.map((p) => p.contact.email.toLowerCase()),
    total_emails: pending.length * body.steps,
    drafted: 0,
    pass: { ...pass, total: pending.length * body.steps },
    pending_pass_id: pass.id,
    pending_count: pending.length,
    pass_drafted: 0,
    pass_failed: 0,
  });
  const proposed = await pendingOf(judged.eligible, known, body.steps, now);
  const reserved = await withPendingEnrollments(accountId, id, pass.id, proposed, now, () =>
    reservePass(
      { accountId, sequenceId: id, chargeId: pass.charge_id, steps: body.steps, judged, pending: proposed },
      (pending) => newSequenceWrite(record(pending), after(now, DEADLINES.DISPATCH_GRACE_MS)),
      clock,
    ),
  );
  if (reserved.pending.length === 0) throw noneEligible(reserved.rejected);
  const sequence = record(reserved.pending);
  await materializeOrLeaveToSweeper(sequence, reserved.pending, clock);
  return { id, name: sequence.name, status: 'drafting' as const, created_at: iso, contacts_accepted: reserved.pending.length, contacts_rejected: reserved.rejected, total_emails: sequence.total_emails, drafted: 0 };
}
