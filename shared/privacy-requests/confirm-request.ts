import { serviceClock, type Clock } from '../core/clock.js';
import { NotFoundError } from '../core/errors.js';
import { eraseFromDirectory } from '../privacy/directory-erasure.js';
import { forgetEmailed, recordOptOut } from '../privacy/opt-outs.repository.js';
import { completeRequest, deleteAddressMailEvidence, forgetAddressInRequests } from './requests.repository.js';
import { directoryRecordsOf, requestOfToken } from './privacy-requests.js';

/**
 * Carrying a request out (POST /privacy-requests/{token}/confirm/), apart from reading and listing so that only
 * the function that confirms bundles the directory erasure (privacy-requests.ts explains the flow).
 */
export interface ConfirmDeps {
  clock?: Clock;
  /** P2's erasure of the directory records and enrichment data (shared/privacy/directory-erasure.ts). */
  eraseFromDirectory?: (profiles: string[], email: string) => Promise<void>;
}

/**
 * POST /privacy-requests/{token}/confirm/: carry the request out, once. A repeat (or a confirm racing it) answers
 * the first completion's `completed_at`.
 *
 * Nothing stuck: every step is idempotent (an opt-out put only where missing or weaker, deletes of what may
 * already be gone, the directory erasure idempotent by contract), and the request is marked completed (and its
 * token used) only after all of them, in one transaction guarded by `status = pending`. A crash anywhere before
 * that leaves the request pending and its link unused, so opening the link again and confirming runs the steps
 * again and completes it; a crash after it leaves nothing undone. "Completed" is therefore never shown for a
 * request whose effects are not all in place. The only thing a crash can cost is the completion record of a
 * request whose link then expires unconfirmed: its effects that did happen stay (an opt-out is never undone),
 * and a new request completes it.
 */
export async function confirmPrivacyRequest(token: string, deps: ConfirmDeps = {}): Promise<{ status: 'completed'; completed_at: string }> {
  const now = (deps.clock ?? serviceClock).now();
  let r = await requestOfToken(token, now);
  if (r.status === 'pending' && r.email) {
    const email = r.email;
    if (r.request !== 'access') {
      const profiles = (await directoryRecordsOf(email)).map((x) => x.url);
      await recordOptOut({ email, profiles, request: r.request, at: now.toISOString() });
      if (r.request === 'erase') {
        await (deps.eraseFromDirectory ?? eraseFromDirectory)(profiles, email);
        await Promise.all([deleteAddressMailEvidence(email), forgetEmailed(email), forgetAddressInRequests(email)]);
      }
    }
    if ((await completeRequest({ request: r, token, now, forgetAddress: r.request === 'erase' })) === 'lost') {
      // Another confirm completed it first, or the link expired in between (then: 404).
      r = await requestOfToken(token, now);
    } else {
      return { status: 'completed', completed_at: now.toISOString() };
    }
  }
  if (r.status !== 'completed' || !r.completed_at) throw new NotFoundError('Unknown or expired link.');
  return { status: 'completed', completed_at: r.completed_at };
}

