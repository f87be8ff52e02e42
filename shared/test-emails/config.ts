import { isLocalMode, optionalEnv } from '../core/env.js';
import { AppError } from '../core/errors.js';

/**
 * Test-email configuration (docs/decisions.md#decisions-the-contract-leaves-open): the fixed shared test inbox and the pilot banner. Locally the
 * inbox is an address of the dev mailbox, which keeps every message the stack sends; in AWS it must be set.
 */
const LOCAL_TEST_INBOX = 'test-inbox@pilot.localhost';
const DEFAULT_BANNER = 'This is a test email from the outreach pilot. It went only to the shared test inbox, not to any prospect.';

/** A deployment without a test inbox (CDK context `testInboxAddress`) answers 503: there is nowhere to send. */
export function testInboxAddress(): string {
  const configured = optionalEnv('TEST_INBOX_ADDRESS') ?? (isLocalMode() ? LOCAL_TEST_INBOX : undefined);
  if (!configured) throw new AppError(503, 'unavailable', 'Test emails are not configured for this deployment: it has no test inbox.', undefined, true);
  return configured;
}

export function testEmailBanner(): string {
  return optionalEnv('TEST_EMAIL_BANNER') ?? DEFAULT_BANNER;
}
