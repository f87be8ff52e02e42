import { ExtraItemConditionFailed, reserveWith, type TransactItem } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import type { Clock } from '../core/clock.js';
import { ContentionError } from '../core/errors.js';
import type { Eligibility } from './eligibility.js';
import { lockHolders, takeLocksWrites } from './sequences.repository.js';
import type { PendingEnrollment, RejectedContact } from './model.js';

/**
 * The reservation of a pass (create, add-contacts): 2 credits × contacts × steps, the sequence write and the
 * enrollment lock of every contact, in one transaction. `already_in_automation` is judged by reading first;
 * a concurrent create that enrolled the same address in between holds its lock, so this transaction fails on
 * it: those contacts become `already_in_automation`, and the pass is tried again without them (at most
 * LOCK_ATTEMPTS times, then a retryable 503). Nothing is reserved for a contact that lost its lock; none left is the caller's 400.
 */
const LOCK_ATTEMPTS = 5;

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
