import fc from 'fast-check';
import { ValidationError } from '../../../shared/core/errors.js';
import { decodeAttachments } from '../../../shared/test-emails/attachments.js';
import { CreateTestEmailSchema } from '../../../shared/test-emails/test-email.schema.js';
import { composeTestEmail } from '../../../shared/test-emails/send-test-email.js';
import type { TestEmailRecord } from '../../../shared/test-emails/model.js';

const text = (filename: string, content_base64: string) => ({ filename, content_type: 'text/plain' as const, content_base64 });

async function rejection(items: Parameters<typeof decodeAttachments>[0]): Promise<ValidationError> {
  const e = await decodeAttachments(items).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ValidationError);
  return e as ValidationError;
}

describe('attachment bytes', () => {
  test('only the canonical encoding is accepted: non-zero padding bits are refused', async () => {
    expect((await decodeAttachments([text('a.txt', 'YQ==')]))[0]!.bytes.toString()).toBe('a');
    expect((await rejection([text('a.txt', 'YR==')])).details![0]!.path).toBe('attachments.0.content_base64');
  });

  test('any UTF-8 text round-trips through strict base64 and is accepted as text/plain', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }).filter((s) => !s.includes('\u0000')), async (s) => {
        // A leading word keeps the text from starting like a binary format, which would rightly be refused.
        const bytes = Buffer.from(`Note: ${s}`, 'utf8');
        const [decoded] = await decodeAttachments([text('notes.txt', bytes.toString('base64'))]);
        expect(decoded!.bytes.equals(bytes)).toBe(true);
        expect(decoded!.size_bytes).toBe(bytes.length);
      }),
      { numRuns: 100 },
    );
  });

  test('extensions match case-insensitively but a bare extension names no file', async () => {
    expect((await decodeAttachments([text('NOTES.TXT', 'YQ==')]))[0]!.filename).toBe('NOTES.TXT');
    for (const name of ['.txt', '.', '..']) expect((await rejection([text(name, 'YQ==')])).details![0]!.path).toBe('attachments.0.filename');
  });

  test('every problem of every file is reported, and no detail repeats the contents', async () => {
    const e = await rejection([text('a.pdf', 'YQ=='), text('b.txt', 'not base64!')]);
    expect(e.details!.map((d) => d.path)).toEqual(['attachments.0.filename', 'attachments.1.content_base64']);
    expect(JSON.stringify(e.details)).not.toContain('not base64!');
  });
});

describe('request shape', () => {
  const base = { from_account: 'ea_01jq4y8m2k3n4p5q6r7s8t9v0w', subject: 'Hi', body_plain: 'Body' };
  test('attachments default to none; exactly one body', () => {
    expect(CreateTestEmailSchema.parse(base).attachments).toEqual([]);
    expect(CreateTestEmailSchema.safeParse({ ...base, body_html: '<p>x</p>' }).success).toBe(false);
    expect(CreateTestEmailSchema.safeParse({ from_account: base.from_account, subject: 'Hi' }).success).toBe(false);
  });
});

describe('the message as sent', () => {
  const record = { body_html: '<p>Body</p>', body_text: 'Body', signature_html: '<p>Ada</p>' } as TestEmailRecord;
  test('body, then signature, then the banner, in both parts', async () => {
    const m = await composeTestEmail(record);
    expect(m.html.indexOf('Body')).toBeLessThan(m.html.indexOf('Ada'));
    expect(m.html.indexOf('Ada')).toBeLessThan(m.html.indexOf('outreach pilot'));
    expect(m.text).toMatch(/^Body\n\nAda\n\n--\n.*outreach pilot/);
  });
  test('no signature, no signature block', async () => {
    expect((await composeTestEmail({ ...record, signature_html: '' })).html).not.toContain('<div>');
  });
});
