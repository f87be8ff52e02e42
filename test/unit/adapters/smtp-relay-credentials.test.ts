import { parseRelayCredentials, relayCredentials, resetRelayCredentials } from '../../../shared/adapters/smtp-relay-credentials.js';

describe('SMTP relay credentials', () => {
  describe('parsing the Secrets Manager value', () => {
    test('{username, password} → the transport’s auth', () => {
      expect(parseRelayCredentials('{"username":"relay-user","password":"s3cret"}')).toEqual({ user: 'relay-user', pass: 's3cret' });
    });

    test('the placeholder the stack creates (no username) → no authentication', () => {
      expect(parseRelayCredentials('{"placeholder":"Zx8…generated"}')).toBeUndefined();
      expect(parseRelayCredentials('{}')).toBeUndefined();
      expect(parseRelayCredentials('{"username":""}')).toBeUndefined();
    });

    test('other fields are ignored', () => {
      expect(parseRelayCredentials('{"username":"u","password":"p","placeholder":"x","host":"ignored"}')).toEqual({ user: 'u', pass: 'p' });
    });

    test('a username without a password, a non-string field or text that is not JSON is refused, without echoing the value', () => {
      expect(() => parseRelayCredentials('{"username":"u"}')).toThrow(/without a password/);
      expect(() => parseRelayCredentials('{"username":"u","password":42}')).toThrow(/must be strings/);
      expect(() => parseRelayCredentials('user:hunter2')).toThrow(/not JSON/);
      expect(() => parseRelayCredentials('user:hunter2')).not.toThrow(/hunter2/);
    });
  });

  describe('where they come from', () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const key of ['SMTP_USER', 'SMTP_PASS', 'SMTP_RELAY_SECRET_ARN']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
      resetRelayCredentials();
    });

    test('locally SMTP_USER / SMTP_PASS override the secret', async () => {
      process.env.SMTP_USER = 'local-user';
      process.env.SMTP_PASS = 'local-pass';
      process.env.SMTP_RELAY_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:never-read-AbCdEf';
      await expect(relayCredentials()).resolves.toEqual({ user: 'local-user', pass: 'local-pass' });
    });

    test('neither the override nor a secret (the twin’s SMTP sink) → no authentication', async () => {
      delete process.env.SMTP_USER;
      delete process.env.SMTP_PASS;
      delete process.env.SMTP_RELAY_SECRET_ARN;
      await expect(relayCredentials()).resolves.toBeUndefined();
    });
  });
});
