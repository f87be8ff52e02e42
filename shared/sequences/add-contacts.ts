import type * as z from '../core/zod.js';
import { ExtraItemConditionFailed } from '../accounts/ledger.repository.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.js';
import { contactAddresses, judgeContacts, noneEligible } from './eligibility.js';
import { materializeOrLeaveToSweeper } from './materialize-pass.js';
import { contactFacts, getSequence, startPassWrite } from './sequences.repository.js';
import { chooseSequenceSender } from './sequence-sender.js';
import { newPass, pendingOf, reservePass, withPendingEnrollments } from './reserve-pass.js';
import { MAX_ENROLLMENTS, type DraftingPass, type PendingEnrollment, type SequenceRecord } from './model.js';
import type { AddContactsSchema } from './schemas.js';

/**
 * POST /sequences/{id}/contacts/ — a new drafting pass on a settled sequence.
 *
 * 1. 404 for an unknown id; 409 while a pass runs (`drafting`) and for `cancelled` or `failed` sequences.
 *    Then read, in one gathered call, what the outreach table knows of the contacts not in it yet (contactFacts).
 * 2. Choose the sender of the new enrollments (`from_account`, else as at create).
 * 3. Judge the contacts on those facts (`already_enrolled` for addresses in the sequence); none eligible is 400;
 *    more than 500 enrollments in all is 400.
 * 4. One transaction (reserve-pass.ts): reserve 2 credits × new emails, open the pass (the sequence still as
 *    read, no pass open: a concurrent add-contacts or cancel makes this one 409) and take the new contacts'
 *    enrollment locks (one enrolled meanwhile by another sequence is `already_in_automation`).
 * 5. Write the new enrollments and start their drafts. New enrollments inherit instructions, steps,
 *    reply_to, cc and bcc, and start at step 0 on their own clock.
 */
export async function addContacts(accountId: string, id: string, body: z.output<typeof AddContactsSchema>, clock: Clock = serviceClock) {
  const now = clock.now();
  const s = await getSequence(accountId, id);
  if (!s) throw new NotFoundError('Sequence not found.');
  if (s.status === 'drafting') throw new ConflictError('A drafting pass is running; add contacts once it has settled.');
  if (s.status === 'cancelled' || s.status === 'failed') throw new ConflictError(`Cannot add contacts to a ${s.status} sequence.`);
  const enrolled = new Set(s.contacts);
  const known = await contactFacts(accountId, contactAddresses(body.contacts).filter((a) => !enrolled.has(a)));
  const sender = await chooseSequenceSender(accountId, body.from_account, s.reply_to ?? undefined, clock);
  const judged = await judgeContacts(body.contacts, known, { accountId, sequenceId: id, enrolled, now });
  if (judged.eligible.length === 0) throw noneEligible(judged.rejected);
  if (s.contacts.length + judged.eligible.length > MAX_ENROLLMENTS) {
    throw new ValidationError(`A sequence holds at most ${MAX_ENROLLMENTS} enrollments; it has ${s.contacts.length}.`, [{ path: 'contacts', message: `at most ${MAX_ENROLLMENTS - s.contacts.length} more` }]);
  }
  const pass = newPass(sender, body.review, s.status, now);
  const passOf = (pending: PendingEnrollment[]): DraftingPass => ({ ...pass, total: pending.length * s.steps });
  const proposed = await pendingOf(judged.eligible, known, s.steps, now);
  let reserved;
  try {
    reserved = await withPendingEnrollments(accountId, id, pass.id, proposed, now, () =>
      reservePass(
        { accountId, sequenceId: id, chargeId: pass.charge_id, steps: s.steps, judged, pending: proposed },
        (pending) => startPassWrite(s, s.status, passOf(pending), pending, now.toISOString(), after(now, DEADLINES.DISPATCH_GRACE_MS)),
        clock,
      ),
    );
  } catch (e) {
    if (e instanceof ExtraItemConditionFailed) throw new ConflictError('The sequence changed meanwhile (another pass or a cancel); read it and try again.');
    throw e;
  }
  const { pending, rejected } = reserved;
  if (pending.length === 0) throw noneEligible(rejected);
  const total = pending.length * s.steps;
  const opened: SequenceRecord = { ...s, status: 'drafting', pass: passOf(pending), pending_pass_id: pass.id, pass_drafted: 0, pass_failed: 0 };
  await materializeOrLeaveToSweeper(opened, pending, clock);
  return { id, name: s.name, status: 'drafting' as const, contacts_accepted: pending.length, contacts_rejected: rejected, emails_added: total };
}
