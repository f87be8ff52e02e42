import { testInboxAddress } from '../../../shared/test-emails/config.js';
import { AppError } from '../../../shared/core/errors.js';

const saved = { mode: process.env.SERVICE_MODE, inbox: process.env.TEST_INBOX_ADDRESS };
afterEach(() => {
  for (const [k, v] of [['SERVICE_MODE', saved.mode], ['TEST_INBOX_ADDRESS', saved.inbox]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test('in AWS without a configured test inbox, creating a test email is a 503 the client may read', () => {
  delete process.env.SERVICE_MODE;
  delete process.env.TEST_INBOX_ADDRESS;
  let thrown: unknown;
  try {
    testInboxAddress();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(AppError);
  expect([(thrown as AppError).statusCode, (thrown as AppError).code, (thrown as AppError).expose]).toEqual([503, 'unavailable', true]);
});

test('the configured inbox wins; locally the dev mailbox address stands in', () => {
  process.env.TEST_INBOX_ADDRESS = 'pilot-inbox@seller.test';
  expect(testInboxAddress()).toBe('pilot-inbox@seller.test');
  delete process.env.TEST_INBOX_ADDRESS;
  process.env.SERVICE_MODE = 'local';
  expect(testInboxAddress()).toBe('test-inbox@pilot.localhost');
});
