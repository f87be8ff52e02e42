import { ExtraItemConditionFailed, reserveWith, type TransactItem } from '../accounts/ledger.repository.js';
import type { SendingAccount } from '../accounts/model.js';
import { PRICES } from '../accounts/prices.js';
import type { Clock } from '../core/clock.js';
import { ContentionError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { directoryTimeZone } from '../outreach/create-email.js';
import type { Contact } from '../outreach/model.js';
import type { Eligibility } from './eligibility.js';
import { deletePendingEnrollments, lockHolders, putPendingEnrollments, takeLocksWrites, type ContactFacts } from './sequences.repository.js';
import type { DraftingPass, PendingEnrollment, RejectedContact } from './model.js';
import { inBatches } from '../core/batches.js';

/**
 * The reservation of a pass (create, add-contacts): 2 credits × contacts × steps, the sequence write and the
 * enrollment lock of every contact, in one transaction. `already_in_automation` is judged by reading first;
 * a concurrent create that enrolled the same address in between holds its lock, so this transaction fails on
 * it: those contacts become `already_in_automation`, and the pass is tried again without them (at most
 * LOCK_ATTEMPTS times, then a retryable 503). Nothing is reserved for a contact that lost its lock; none left is the caller's 400.
 */
const LOCK_ATTEMPTS = 5;
/** Contacts whose directory entry is read at once for their time zone. */
const CONCURRENCY = 10;

/** A new pass; its `total` is set once its contacts are known (at the reservation). */
export function newPass(sender: SendingAccount, review: 'required' | 'none', priorStatus: DraftingPass['prior_status'], now: Date): DraftingPass {
  return { id: newId('en', now.getTime()), charge_id: newId('chg', now.getTime()), review, total: 0, prior_status: priorStatus, from_account: sender.id, from_email: sender.email, timezone: sender.timezone };
}

/**
 * The pending enrollments of a pass: each eligible contact with its recipient zone (the directory's, else that
 * of its lead in `known`, as the judge read it) and the ids of its steps.
 */
export async function pendingOf(contacts: Contact[], known: ReadonlyMap<string, ContactFacts>, steps: number, now: Date): Promise<PendingEnrollment[]> {
  const zones = await inBatches(contacts, CONCURRENCY, directoryTimeZone);
  const out: PendingEnrollment[] = contacts.map((contact, i) => ({ contact, recipient_timezone: zones[i] ?? known.get(contact.email.toLowerCase())?.lead?.timezone ?? null, email_ids: [] }));
  // Ids are taken in order after every await, so step ids and enrollments keep the order they were given in.
  for (const p of out) p.email_ids = Array.from({ length: steps }, () => newId('em', now.getTime()));
  return out;
}

export interface ReservedPass {
  pending: PendingEnrollment[];
  rejected: RejectedContact[];
}

export async function reservePass(
  input: { accountId: string; sequenceId: string; chargeId: string; steps: number; judged: Eligibility; pending: PendingEnrollment[] },
  recordWrite: (pending: PendingEnrollment[]) => TransactItem,
  clock: Clock,
): Promise<ReservedPass> {
  let pending = input.pending;
  const rejected = [...input.judged.rejected];
  const sent = new Map(input.judged.eligible.map((c, i) => [c.email.toLowerCase(), input.judged.sent[i]]));
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    const addresses = pending.map((p) => p.contact.email);
    try {
      await reserveWith(
        { accountId: input.accountId, operation: 'sequence', reference: input.sequenceId, amount: PRICES.sequence_per_draft * pending.length * input.steps, chargeId: input.chargeId },
        [recordWrite(pending), ...takeLocksWrites(input.accountId, input.sequenceId, addresses)],
        clock,
      );
      return { pending, rejected };
    } catch (e) {
      if (!(e instanceof ExtraItemConditionFailed) || e.index === 0) throw e;
    }
    const holders = await lockHolders(input.accountId, addresses);
    const lost = (p: PendingEnrollment) => {
      const holder = holders.get(p.contact.email.toLowerCase());
      return holder !== undefined && holder !== input.sequenceId;
    };
    for (const p of pending.filter(lost)) rejected.push({ contact: sent.get(p.contact.email.toLowerCase()), reason: 'already_in_automation' });
    pending = pending.filter((p) => !lost(p));
    if (pending.length === 0) return { pending, rejected };
  }
  throw new ContentionError('The contacts are being enrolled by concurrent requests; retry shortly.');
}

/**
 * Runs a pass's reservation with its pending enrollments written first, to items of their own (the reservation
 * transaction records only their pass id). When the reservation records nothing (402, 409, 503, every contact
 * lost), the items go again; contacts lost on the way are never read back (only the recorded addresses are).
 */
export async function withPendingEnrollments(accountId: string, sequenceId: string, passId: string, pending: PendingEnrollment[], now: Date, reserve: () => Promise<ReservedPass>): Promise<ReservedPass> {
  await putPendingEnrollments(accountId, sequenceId, passId, pending, now);
  let reserved: ReservedPass;
  try {
    reserved = await reserve();
  } catch (e) {
    await deletePendingEnrollments(accountId, sequenceId, passId).catch(() => undefined);
    throw e;
  }
  if (reserved.pending.length === 0) await deletePendingEnrollments(accountId, sequenceId, passId);
  return reserved;
}
