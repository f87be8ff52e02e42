import { isLocalMode, optionalEnv, requireEnv } from '../core/env.js';

/**
 * Test-email configuration (DESIGN.md §3): the fixed shared test inbox and the pilot banner. Locally the
 * inbox is an address of the dev mailbox, which keeps every message the stack sends; in AWS it must be set.
 */
const LOCAL_TEST_INBOX = 'test-inbox@pilot.localhost';
const DEFAULT_BANNER = 'This is a test email from the outreach pilot. It went only to the shared test inbox, not to any prospect.';

export function testInboxAddress(): string {
  return optionalEnv('TEST_INBOX_ADDRESS') ?? (isLocalMode() ? LOCAL_TEST_INBOX : requireEnv('TEST_INBOX_ADDRESS'));
}

export function testEmailBanner(): string {
  return optionalEnv('TEST_EMAIL_BANNER') ?? DEFAULT_BANNER;
}
