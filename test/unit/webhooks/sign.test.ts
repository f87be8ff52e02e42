import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../../shared/webhooks/sign.js';

const body = JSON.stringify({ id: 'dj_01jabcdefghjkmnpqrstvwxyz0', event_type: 'phone_enrich.completed', phone: '+14155550100' });

function hmacOf(secret: string, msgId: string, ts: string, payload: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return createHmac('sha256', key).update(`${msgId}.${ts}.${payload}`).digest('base64');
}

describe('generateWebhookSecret', () => {
  it('returns whsec_ + base64 of 24 random bytes, accepted by the Standard Webhooks library', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(() => new Webhook(secret)).not.toThrow();
  });

  it('never repeats', () => {
    const secrets = new Set(Array.from({ length: 200 }, generateWebhookSecret));
    expect(secrets.size).toBe(200);
  });
});

describe('signWebhook', () => {
  const first = generateWebhookSecret();
  const second = generateWebhookSecret();

  it('signs once per secret, and the library verifies the delivery with each of them', () => {
    const timestamp = new Date();
    const headers = signWebhook({ secrets: [first, second], msgId: 'msg_1', timestamp, body });

    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(timestamp.getTime() / 1000)));
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toEqual(expect.any(String));
    const parts = headers['webhook-signature']!.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);

    expect(new Webhook(first).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(second).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it('is HMAC-SHA256 over id.timestamp.body, base64, as docs/decisions.md#webhook-signatures states', () => {
    const timestamp = new Date('2030-01-02T03:04:05.678Z');
    const headers = signWebhook({ secrets: [first, second], msgId: 'msg_2', timestamp, body });
    expect(headers['webhook-timestamp']).toBe('1893553445');
    expect(headers['webhook-signature']).toBe(
      `v1,${hmacOf(first, 'msg_2', '1893553445', body)} v1,${hmacOf(second, 'msg_2', '1893553445', body)}`,
    );
  });

  it('gives the same signature for a retry with the same id and timestamp', () => {
    const timestamp = new Date();
    const a = signWebhook({ secrets: [first], msgId: 'msg_3', timestamp, body });
    const b = signWebhook({ secrets: [first], msgId: 'msg_3', timestamp, body });
    expect(a).toEqual(b);
  });

  it('fails verification for a tampered body, id or timestamp', () => {
    const timestamp = new Date();
    const headers = signWebhook({ secrets: [first, second], msgId: 'msg_4', timestamp, body });
    const tampered = body.replace('+14155550100', '+14155550199');
    expect(tampered).not.toBe(body);
    expect(() => verifyWebhook(first, headers, tampered)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(second, headers, tampered)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(first, { ...headers, 'webhook-id': 'msg_5' }, body)).toThrow(WebhookVerificationError);
    const ts = Number(headers['webhook-timestamp']);
    expect(() => verifyWebhook(first, { ...headers, 'webhook-timestamp': String(ts - 1) }, body)).toThrow(
      WebhookVerificationError,
    );
  });

  it('produces a delivery the receiver rejects once it is older than five minutes', () => {
    const headers = signWebhook({ secrets: [first], msgId: 'msg_6', timestamp: new Date(Date.now() - 10 * 60_000), body });
    expect(() => verifyWebhook(first, headers, body)).toThrow('Message timestamp too old');
  });

  it('refuses to sign without a secret', () => {
    expect(() => signWebhook({ secrets: [], msgId: 'msg_7', timestamp: new Date(), body })).toThrow(/secret/);
  });

  it('round-trips any JSON body, with any message id', () => {
    fc.assert(
      fc.property(fc.json(), fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/), (payload, msgId) => {
        const headers = signWebhook({ secrets: [first, second], msgId, timestamp: new Date(), body: payload });
        expect(verifyWebhook(second, headers, payload)).toEqual(JSON.parse(payload));
        expect(verifyWebhook(first, headers, Buffer.from(payload))).toEqual(JSON.parse(payload));
      }),
      { numRuns: 200 },
    );
  });
});

describe('verifyWebhook', () => {
  it('accepts headers as Node delivers them (any case, string arrays)', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ secrets: [secret], msgId: 'msg_8', timestamp: new Date(), body });
    const received = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
      'webhook-signature': [headers['webhook-signature']!],
      'x-other': undefined,
    };
    expect(verifyWebhook(secret, received, body)).toEqual(JSON.parse(body));
  });

  it('rejects a delivery without signature headers', () => {
    expect(() => verifyWebhook(generateWebhookSecret(), { 'content-type': 'application/json' }, body)).toThrow(
      'Missing required headers',
    );
  });
});
