import { aesSecretBox } from '../../../shared/adapters/secret-box.js';
import { isSmtpHostName, patchSmtpSettings, sealSmtpSettings, smtpSettingsView } from '../../../shared/accounts/smtp-settings.js';
import { SmtpSettingsInputSchema, SmtpSettingsPatchSchema } from '../../../shared/accounts/smtp-settings-schemas.js';
import { CreateSendingAccountSchema } from '../../../shared/accounts/account-schemas.js';
import { UpdateSendingAccountSchema } from '../../../shared/accounts/sending-account-patch.js';

const box = aesSecretBox(Buffer.alloc(32, 7));
const CTX = 'sending-accounts/ea_test/smtp-password';
const valid = { host: 'smtp.example.com', port: 587, username: 'jane', password: 'correct horse' };

describe('smtp settings validation', () => {
  test.each(['smtp.example.com', 'mail-1.eu.example.org', 'SMTP.Example.COM', 'localhost'])('%s is a host name', (host) => {
    expect(isSmtpHostName(host)).toBe(true);
  });

  test.each(['127.0.0.1', '169.254.169.254', '[::1]', '::1', 'smtp', '-bad.example.com', 'bad-.example.com', 'smtp.example.123', 'smtp..example.com', 'smtp.example.com:25', 'smtp example.com', `${'a'.repeat(64)}.example.com`, 'https://smtp.example.com'])(
    '%s is refused',
    (host) => {
      expect(isSmtpHostName(host)).toBe(false);
      expect(SmtpSettingsInputSchema.safeParse({ ...valid, host }).success).toBe(false);
    },
  );

  test.each([0, -1, 65_536, 587.5])('port %s is refused', (port) => {
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, port }).success).toBe(false);
  });

  test.each([1, 25, 465, 587, 65_535])('port %s is accepted', (port) => {
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, port }).success).toBe(true);
  });

  test('TLS mode is starttls or implicit; there is no clear-text mode', () => {
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, tls: 'implicit' }).success).toBe(true);
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, tls: 'none' }).success).toBe(false);
  });

  test('a password or login with a line break (SMTP command injection) is refused; unknown fields too', () => {
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, password: 'a\r\nRCPT TO:<x@y.z>' }).success).toBe(false);
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, username: 'a\nb' }).success).toBe(false);
    expect(SmtpSettingsInputSchema.safeParse({ ...valid, secure: true }).success).toBe(false);
  });

  test('settings and transport are for smtp accounts only', () => {
    expect(CreateSendingAccountSchema.safeParse({ email: 'a@example.com', type: 'smtp', smtp: valid, transport: 'ses' }).success).toBe(true);
    expect(CreateSendingAccountSchema.safeParse({ email: 'a@example.com', type: 'google', smtp: valid }).success).toBe(false);
    expect(CreateSendingAccountSchema.safeParse({ email: 'a@example.com', type: 'microsoft', transport: 'smtp' }).success).toBe(false);
    expect(CreateSendingAccountSchema.safeParse({ email: 'a@example.com', type: 'smtp', transport: 'gmail' }).success).toBe(false);
  });

  test('a PATCH may name any part of the settings, but not an empty object', () => {
    expect(UpdateSendingAccountSchema.safeParse({ smtp: { password: 'new one' } }).success).toBe(true);
    expect(UpdateSendingAccountSchema.safeParse({ smtp: {} }).success).toBe(false);
    expect(SmtpSettingsPatchSchema.safeParse({ port: 70_000 }).success).toBe(false);
  });
});

describe('smtp settings storage', () => {
  test('the password is sealed, never stored or shown in clear; the TLS mode follows the port', async () => {
    const stored = await sealSmtpSettings(SmtpSettingsInputSchema.parse({ ...valid, host: 'SMTP.Example.com' }), box, CTX);
    expect(stored).toMatchObject({ host: 'smtp.example.com', port: 587, username: 'jane', tls: 'starttls', version: 1 });
    expect(JSON.stringify(stored)).not.toContain('correct horse');
    expect(await box.open(stored.password_sealed, CTX)).toBe('correct horse');
    expect(smtpSettingsView(stored)).toEqual({ host: 'smtp.example.com', port: 587, username: 'jane', tls: 'starttls', password_set: true });
    expect((await sealSmtpSettings({ ...valid, port: 465 }, box, CTX)).tls).toBe('implicit');
  });

  test('a PATCH keeps what it does not name and moves the version on', async () => {
    const stored = await sealSmtpSettings(valid, box, CTX);
    const next = await patchSmtpSettings(stored, { username: 'john' }, box, CTX);
    expect(next).toMatchObject({ host: 'smtp.example.com', username: 'john', version: 2, password_sealed: stored.password_sealed });
    const renewed = await patchSmtpSettings(stored, { password: 'battery staple' }, box, CTX);
    expect('password_sealed' in renewed && (await box.open(renewed.password_sealed, CTX))).toBe('battery staple');
  });

  test('without stored settings, a PATCH must give host, port, username and password', async () => {
    expect(await patchSmtpSettings(undefined, { host: 'smtp.example.com', password: 'x' }, box, CTX)).toEqual({ missing: ['port', 'username'] });
    expect(await patchSmtpSettings(undefined, valid, box, CTX)).toMatchObject({ version: 1, tls: 'starttls' });
  });
});
