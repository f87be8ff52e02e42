import * as z from '../core/zod.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { putPendingRequest, takeVerificationSlot } from './requests.repository.js';
import { CreatePrivacyRequestSchema, VERIFICATIONS_PER_ADDRESS_PER_DAY, newLinkToken, newRequestId } from './privacy-requests.js';
import { sendVerificationMail } from './verification-mail.js';

/**
 * Asking (POST /privacy-requests/), apart from reading and listing so that only the function that asks bundles
 * the mail path (privacy-requests.ts explains the flow).
 */
export interface CreateDeps {
  clock?: Clock;
  /** The mail step (tests replace it). */
  send?: typeof sendVerificationMail;
}

/** POST /privacy-requests/: always `{status: "verification_sent"}` (202), whatever the address. */
export async function createPrivacyRequest(input: z.output<typeof CreatePrivacyRequestSchema>, deps: CreateDeps = {}): Promise<{ status: 'verification_sent' }> {
  const now = (deps.clock ?? serviceClock).now();
  const email = input.email.trim();
  if (await takeVerificationSlot(email, now, VERIFICATIONS_PER_ADDRESS_PER_DAY)) {
    const token = newLinkToken();
    await putPendingRequest({ id: newRequestId(now), request: input.request, email, token, now });
    await (deps.send ?? sendVerificationMail)({ email, request: input.request, token, now });
  }
  return { status: 'verification_sent' };
}

