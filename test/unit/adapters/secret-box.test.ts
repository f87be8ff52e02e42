import { createCipheriv, randomBytes } from 'node:crypto';
import { aesSecretBox, sealContext, secretBoxKeyId } from '../../../shared/adapters/secret-box.js';

const key = Buffer.alloc(32, 9);
const box = aesSecretBox(key);
const mine = sealContext.webhookSecret('acct_a', 'whsec_1');

/** A value in the first format, as the code before key ids and associated data sealed it. */
function sealV1(plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `v1.${iv.toString('base64')}.${c.getAuthTag().toString('base64')}.${body.toString('base64')}`;
}

describe('secret box', () => {
  test('seals as v2 with the key id recorded, and opens with the same record identity', async () => {
    const sealed = await box.seal('whsec_abc', mine);
    const [v, kid] = sealed.split('.');
    expect(v).toBe('v2');
    expect(kid).toBe(secretBoxKeyId(key));
    expect(kid).toBe(box.kid);
    expect(kid).toMatch(/^[0-9a-f]{16}$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(await box.open(sealed, mine)).toBe('whsec_abc');
  });

  test('a value moved to another record (another context) does not open', async () => {
    const sealed = await box.seal('whsec_abc', mine);
    await expect(box.open(sealed, sealContext.webhookSecret('acct_b', 'whsec_1'))).rejects.toThrow();
    await expect(box.open(sealed, sealContext.webhookSecret('acct_a', 'whsec_2'))).rejects.toThrow();
    await expect(box.open(sealed, sealContext.smtpPassword('ea_1'))).rejects.toThrow();
    await expect(box.open(sealed, '')).rejects.toThrow();
  });

  test('a value of another key is refused by its key id; a tampered one does not open', async () => {
    const other = aesSecretBox(Buffer.alloc(32, 1));
    await expect(box.open(await other.seal('x', mine), mine)).rejects.toThrow(/another key/);
    const sealed = await box.seal('whsec_abc', mine);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('whsec_xyz').toString('base64');
    await expect(box.open(parts.join('.'), mine)).rejects.toThrow();
    await expect(box.open('v3.a.b.c.d', mine)).rejects.toThrow(/unrecognised/);
  });

  test('v1 values (no key id, no associated data) still open', async () => {
    expect(await box.open(sealV1('old secret'), mine)).toBe('old secret');
    expect(await box.open(sealV1('old password'), sealContext.smtpPassword('ea_1'))).toBe('old password');
  });

  test('sealing without a record identity is refused', async () => {
    await expect(box.seal('x', '')).rejects.toThrow(/context/);
  });
});
