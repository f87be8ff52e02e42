import { simpleParser, type AddressObject } from 'mailparser';
import { ValidationError } from '../../../shared/core/errors.js';
import {
  appendUnsubscribeFooter,
  buildMime,
  envelopeFor,
  unsubscribeHeaders,
  type BuildMimeOptions,
} from '../../../shared/outreach/mime.js';

const UNSUB = 'https://outreach.example.com/u/em_01HZX3?t=abc123';

function options(overrides: Partial<BuildMimeOptions> = {}): BuildMimeOptions {
  return {
    messageId: '<em_01HZX3.1715000000@vaultly.io>',
    from: { email: 'sam@vaultly.io', name: 'Sam Lee' },
    to: { email: 'jane@acme.io', name: 'Jane Doe' },
    cc: ['ops@vaultly.io', 'cto@vaultly.io'],
    bcc: ['crm-archive@vaultly.io'],
    replyTo: 'replies@vaultly.io',
    subject: 'Jane, SOC 2 automation für Acme?',
    text: 'Hi Jane,\n\nQuick note.\n\nBest,\nSam',
    html: '<p>Hi Jane,</p><p>Quick note.</p><p>Best,<br>Sam</p>',
    headers: unsubscribeHeaders(UNSUB),
    date: new Date('2024-05-07T13:41:00Z'),
    ...overrides,
  };
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ''));
}

describe('buildMime', () => {
  it('builds a multipart/alternative message that parses back with every header', async () => {
    const raw = await buildMime(options());
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe('<em_01HZX3.1715000000@vaultly.io>');
    expect(parsed.subject).toBe('Jane, SOC 2 automation für Acme?');
    expect(addresses(parsed.from)).toEqual(['sam@vaultly.io']);
    expect(addresses(parsed.to)).toEqual(['jane@acme.io']);
    expect(addresses(parsed.cc)).toEqual(['ops@vaultly.io', 'cto@vaultly.io']);
    expect(addresses(parsed.replyTo)).toEqual(['replies@vaultly.io']);
    expect(parsed.date?.toISOString()).toBe('2024-05-07T13:41:00.000Z');
    expect(parsed.text?.trim()).toBe('Hi Jane,\n\nQuick note.\n\nBest,\nSam');
    expect(parsed.html).toBe('<p>Hi Jane,</p><p>Quick note.</p><p>Best,<br>Sam</p>');
    expect((parsed.headers.get('content-type') as { value: string }).value).toBe('multipart/alternative');
    const lines = Object.fromEntries(parsed.headerLines.map((h) => [h.key, h.line]));
    expect(lines['list-unsubscribe']).toBe(`List-Unsubscribe: <${UNSUB}>`);
    expect(lines['list-unsubscribe-post']).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(parsed.headers.get('list')).toEqual({
      unsubscribe: { url: UNSUB },
      'unsubscribe-post': { name: 'List-Unsubscribe=One-Click' },
    });
  });

  it('leaves Bcc out of the message', async () => {
    const raw = await buildMime(options());
    const parsed = await simpleParser(raw);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.headerLines.map((h) => h.key)).not.toContain('bcc');
    expect(raw.toString('utf8')).not.toContain('crm-archive@vaultly.io');
  });

  it('sets threading headers for follow-ups', async () => {
    const parsed = await simpleParser(
      await buildMime(options({ inReplyTo: '<em_0@vaultly.io>', references: ['<em_0@vaultly.io>'] })),
    );
    expect(parsed.inReplyTo).toBe('<em_0@vaultly.io>');
    expect(parsed.references).toBe('<em_0@vaultly.io>');
  });

  it('omits Cc and Reply-To when there are none', async () => {
    const parsed = await simpleParser(await buildMime(options({ cc: [], replyTo: undefined })));
    expect(parsed.cc).toBeUndefined();
    expect(parsed.replyTo).toBeUndefined();
  });

  it.each([
    ['a malformed Message-ID', options({ messageId: 'em_1@vaultly.io' })],
    ['a header with a line break', options({ headers: { 'X-Campaign': 'a\r\nBcc: victim@example.com' } })],
    ['a reserved header', options({ headers: { Bcc: 'victim@example.com' } })],
    ['an invalid header name', options({ headers: { 'X Bad': 'v' } })],
    ['a subject with a line break', options({ subject: 'Hi\nBcc: victim@example.com' })],
  ])('rejects %s', async (_label, opts) => {
    await expect(buildMime(opts)).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('envelopeFor', () => {
  it('sends to the recipient, Cc and Bcc once each', () => {
    expect(envelopeFor({ ...options(), cc: ['ops@vaultly.io', 'JANE@acme.io'] })).toEqual({
      from: 'sam@vaultly.io',
      to: ['jane@acme.io', 'ops@vaultly.io', 'crm-archive@vaultly.io'],
    });
  });
});

describe('unsubscribe helpers', () => {
  it('builds RFC 8058 one-click headers', () => {
    expect(unsubscribeHeaders(UNSUB)).toEqual({
      'List-Unsubscribe': `<${UNSUB}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });

  it('leaves one-click out for a message several people get with the same link', async () => {
    expect(unsubscribeHeaders(UNSUB, { oneClick: false })).toEqual({ 'List-Unsubscribe': `<${UNSUB}>` });
    const parsed = await simpleParser(await buildMime(options({ headers: unsubscribeHeaders(UNSUB, { oneClick: false }) })));
    const keys = parsed.headerLines.map((h) => h.key);
    expect(keys).toContain('list-unsubscribe');
    expect(keys).not.toContain('list-unsubscribe-post');
    expect(addresses(parsed.cc)).toEqual(['ops@vaultly.io', 'cto@vaultly.io']);
  });

  it.each([['javascript:alert(1)'], ['not a url'], ['https://x.example/a b'], ['mailto:u@x.example']])(
    'rejects %s',
    (url) => {
      expect(() => unsubscribeHeaders(url)).toThrow(ValidationError);
    },
  );

  it('appends a footer to both bodies, the unsubscribe link and the privacy page beside it, before </body> in a document', () => {
    const url = 'https://outreach.example.com/u/1?a=1&b=2';
    const privacy = 'https://app.example.com/privacy/';
    const plain = appendUnsubscribeFooter({ text: 'Best,\nSam\n\n', html: '<p>Best,<br>Sam</p>' }, url, privacy);
    expect(plain.text).toBe(`Best,\nSam\n\n--\nIf you'd rather not hear from me again, unsubscribe here: ${url}\nTo see or remove the data held about you: ${privacy}\n`);
    expect(plain.html).toBe(
      '<p>Best,<br>Sam</p>\n<p>--<br>\nIf you\'d rather not hear from me again, <a href="https://outreach.example.com/u/1?a=1&amp;b=2">unsubscribe here</a>.<br>\n' +
        '<a href="https://app.example.com/privacy/">See or remove the data held about you</a>.</p>',
    );

    const doc = appendUnsubscribeFooter({ text: 'x', html: '<html><body><p>x</p></body></html>' }, url, privacy);
    expect(doc.html).toMatch(/<p>x<\/p><p>--<br>[\s\S]*unsubscribe here<\/a>\.<br>\n<a href="https:\/\/app\.example\.com\/privacy\/">See or remove the data held about you<\/a>\.<\/p>\n<\/body><\/html>$/);
    expect(() => appendUnsubscribeFooter({ text: 'x', html: 'x' }, url, 'javascript:alert(1)')).toThrow(ValidationError);
  });
});
