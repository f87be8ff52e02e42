import { ConnectMailboxSchema } from '../../../shared/mailboxes/connect-mailbox.js';

/** `return_url` of POST …/sending-accounts/connect/: a 400 detail for anything but an https URL, never a throw. */
afterEach(() => {
  delete process.env.SERVICE_MODE;
});

test.each([
  ['not a URL at all', 'notaurl', ['Invalid URL']],
  ['plain http outside local mode', 'http://example.com/back', ['must be an https URL']],
  ['a javascript: URL', 'javascript:alert(1)', ['must be an https URL']],
])('%s is refused with a detail on return_url', (_, value, messages) => {
  const r = ConnectMailboxSchema.safeParse({ type: 'google', return_url: value });
  expect(r.success).toBe(false);
  expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual(messages.map((m) => ['return_url', m]));
});

test('an https URL is accepted, and loopback http only on the twin', () => {
  expect(ConnectMailboxSchema.safeParse({ type: 'microsoft', return_url: 'https://app.example.com/done' }).success).toBe(true);
  expect(ConnectMailboxSchema.safeParse({ type: 'google', return_url: 'http://127.0.0.1:5173/done' }).success).toBe(false);
  process.env.SERVICE_MODE = 'local';
  expect(ConnectMailboxSchema.safeParse({ type: 'google', return_url: 'http://127.0.0.1:5173/done' }).success).toBe(true);
});
