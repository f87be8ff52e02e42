import { resetProviderSettings } from '../../../shared/adapters/oauth-providers.js';
import { ConsentRequiredError, hasEmulatedConsent } from '../../../shared/mailboxes/connect-mailbox.js';

/** docs/decisions.md#connecting-a-mailbox: only the twin's loopback emulator consents by itself; anywhere else the owner uses connect/. */
const clients = (authorize: string) => JSON.stringify({ google: { client_id: 'g', client_secret: 's', authorization_endpoint: authorize }, microsoft: { client_id: 'm', client_secret: 's', authorization_endpoint: authorize } });

afterEach(() => {
  delete process.env.SERVICE_MODE;
  delete process.env.MAILBOX_PROVIDERS;
  resetProviderSettings();
});

test.each([
  ['local mode, loopback emulator', true, 'local', 'http://127.0.0.1:4100/google/oauth/authorize'],
  ['local mode, the real provider', false, 'local', 'https://accounts.google.com/o/oauth2/v2/auth'],
  ['AWS, even with a loopback endpoint configured', false, undefined, 'http://127.0.0.1:4100/google/oauth/authorize'],
])('%s: consents by itself = %s', async (_, expected, mode, authorize) => {
  if (mode) process.env.SERVICE_MODE = mode;
  process.env.MAILBOX_PROVIDERS = clients(authorize);
  resetProviderSettings();
  expect(await hasEmulatedConsent('google')).toBe(expected);
  expect(await hasEmulatedConsent('microsoft')).toBe(expected);
});

test('the refusal is a 400 invalid_request on `type` that names connect/', () => {
  const e = new ConsentRequiredError('microsoft');
  expect(e.statusCode).toBe(400);
  expect(e.code).toBe('invalid_request');
  expect(e.message).toContain('sending-accounts/connect/');
  expect(e.details).toEqual([expect.objectContaining({ path: 'type' })]);
});
