import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { readParsedMail, readRawMail, type MailReading } from '../../../shared/outreach/mail-reading.js';

/**
 * The reader against a corpus of real mail (test/fixtures/mail-corpus, see its SOURCES.md): bounces,
 * complaints and auto-replies from sisimai's set-of-emails labelled by go-sisimai, and human replies from
 * reply-parser test suites. Plus focused cases for the rules the corpus cannot show on its own.
 */
interface Entry {
  file: string;
  kind: 'bounce' | 'complaint' | 'auto_reply' | 'reply';
  mail_system: string | null;
  recipient: string | null;
  hard: boolean | null;
  delayed?: boolean;
  modified?: string;
  original_message_id?: string;
}

const corpus = fileURLToPath(new URL('../../fixtures/mail-corpus/', import.meta.url));
const manifest: Entry[] = JSON.parse(readFileSync(`${corpus}manifest.json`, 'utf8'));
const readings = new Map<string, MailReading>();

beforeAll(async () => {
  for (const e of manifest) readings.set(e.file, (await readRawMail(readFileSync(`${corpus}${e.file}`))).reading);
});

const of = (kind: Entry['kind']) => manifest.filter((e) => e.kind === kind);
const rate = (hits: number, n: number) => (n === 0 ? 1 : hits / n);

describe('the real-mail corpus', () => {
  it('has the promised size and spread', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(300);
    expect(of('reply').length).toBeGreaterThanOrEqual(100);
    expect(new Set(of('bounce').map((e) => e.file.replace(/^sisimai\/|-\d+\.eml$/g, ''))).size).toBeGreaterThanOrEqual(30);
    expect(of('reply').filter((e) => e.modified === 'subject').length).toBeGreaterThanOrEqual(5);
  });

  it('recognises >= 98% of bounces as bounces naming the right failed recipient', () => {
    const bounces = of('bounce');
    const right = bounces.filter((e) => {
      const r = readings.get(e.file)!;
      return r.kind === 'bounce' && r.failed.some((f) => f.address === e.recipient);
    });
    expect(rate(right.length, bounces.length)).toBeGreaterThanOrEqual(0.98);
  });

  it('agrees with the reference on hard/soft for >= 84% of recognised bounces (docs/mail-recognition.md says where and why not)', () => {
    let agree = 0;
    let n = 0;
    for (const e of of('bounce')) {
      const f = readings.get(e.file)!.failed.find((x) => x.address === e.recipient);
      if (!f || e.hard === null) continue;
      n += 1;
      if (f.hard === e.hard) agree += 1;
    }
    expect(n).toBeGreaterThan(200);
    expect(rate(agree, n)).toBeGreaterThanOrEqual(0.84);
  });

  it('never reads a human reply as a bounce, and reads every one as a reply', () => {
    const replies = of('reply');
    expect(replies.filter((e) => readings.get(e.file)!.kind === 'bounce')).toEqual([]);
    expect(replies.filter((e) => readings.get(e.file)!.kind !== 'reply').map((e) => e.file)).toEqual([]);
  });

  it('reads replies whose subjects look like bounces as replies', () => {
    const forged = of('reply').filter((e) => e.modified === 'subject');
    expect(forged.length).toBeGreaterThan(0);
    for (const e of forged) expect(readings.get(e.file)!.kind).toBe('reply');
  });

  it('recognises every complaint, naming the complained-about recipient where the label has one', () => {
    for (const e of of('complaint')) {
      const r = readings.get(e.file)!;
      expect(r.kind).toBe('complaint');
      if (e.recipient) expect(r.failed.map((f) => f.address)).toContain(e.recipient);
    }
  });

  it('recognises every auto-reply and delay notice', () => {
    for (const e of of('auto_reply')) {
      const r = readings.get(e.file)!;
      expect([e.file, r.kind]).toEqual([e.file, 'auto_reply']);
      expect([e.file, r.delayed]).toEqual([e.file, e.delayed === true]);
    }
  });

  it('extracts the original Message-ID for >= 98% of the bounces and complaints whose returned part carries one', () => {
    const withId = manifest.filter((e) => e.original_message_id && (e.kind === 'bounce' || e.kind === 'complaint'));
    const found = withId.filter((e) => readings.get(e.file)!.original_message_ids.includes(e.original_message_id!));
    expect(withId.length).toBeGreaterThan(150);
    expect(rate(found.length, withId.length)).toBeGreaterThanOrEqual(0.98);
  });
});

// ── Focused cases ───────────────────────────────────────────────────────────────────────────────────

const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');

function dsn(fields: string, subject = 'Delivery Status Notification (Failure)', from = 'Mail Delivery Subsystem <mailer-daemon@mx.relay.example>'): string {
  return crlf(`From: ${from}
To: sam@vaultly.io
Subject: ${subject}
Message-ID: <dsn-1@mx.relay.example>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

This is an automatically generated Delivery Status Notification.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.relay.example
Arrival-Date: Mon, 6 May 2024 09:00:00 +0000

${fields}
--b1
Content-Type: text/rfc822-headers

From: Sam <sam@vaultly.io>
To: jane@acme.io
Subject: SOC 2 for Acme
Message-ID: <em_123@vaultly.io>

--b1--
`);
}

describe('RFC 3464 delivery status notifications', () => {
  it('lists every failed recipient of a multi-recipient DSN with its status, reason and verdict', async () => {
    const raw = dsn(`Final-Recipient: rfc822; Jane@Acme.io
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <jane@acme.io>: Recipient address rejected: User unknown

Final-Recipient: rfc822; raj@globex.com
Action: failed
Status: 5.2.2
Diagnostic-Code: smtp; 552 5.2.2 Mailbox full

Original-Recipient: rfc822; mo@initech.com
Final-Recipient: rfc822; mo@mail.initech.com
Action: failed
Status: 5.0.0
Diagnostic-Code: smtp; 550 Host unknown: no such domain

Final-Recipient: rfc822; li@hooli.co.uk
Action: delivered
Status: 2.0.0
`);
    const { reading } = await readRawMail(raw);
    expect(reading.kind).toBe('bounce');
    expect(reading.delayed).toBe(false);
    expect(reading.mail_system).toBe('rfc3464');
    expect(reading.failed.map(({ address, status, hard, reason }) => ({ address, status, hard, reason }))).toEqual([
      { address: 'jane@acme.io', status: '5.1.1', hard: true, reason: 'user_unknown' },
      { address: 'raj@globex.com', status: '5.2.2', hard: false, reason: 'mailbox_full' },
      { address: 'mo@mail.initech.com', status: '5.0.0', hard: true, reason: 'host_unknown' },
    ]);
    expect(reading.failed[0]!.diagnostic).toContain('User unknown');
    expect(reading.original_message_ids).toEqual(['<em_123@vaultly.io>']);
  });

  it('reads the same DSN from mailparser output alone (no raw message)', async () => {
    const raw = dsn('Final-Recipient: rfc822; jane@acme.io\nAction: failed\nStatus: 5.1.1\n');
    const reading = readParsedMail(await simpleParser(raw));
    expect(reading.kind).toBe('bounce');
    expect(reading.failed.map((f) => f.address)).toEqual(['jane@acme.io']);
  });

  it('treats a delay-only DSN as an auto-reply with delayed=true', async () => {
    const raw = dsn('Final-Recipient: rfc822; jane@acme.io\nAction: delayed\nStatus: 4.4.1\nWill-Retry-Until: Wed, 8 May 2024 09:00:00 +0000\n', 'Delivery Status Notification (Delay)');
    const { reading } = await readRawMail(raw);
    expect(reading).toMatchObject({ kind: 'auto_reply', delayed: true, failed: [] });
  });

  it('never calls a 4.x.x failure hard', async () => {
    const raw = dsn('Final-Recipient: rfc822; jane@acme.io\nAction: failed\nStatus: 4.1.1\nDiagnostic-Code: smtp; 450 4.1.1 User unknown, try again\n');
    const { reading } = await readRawMail(raw);
    expect(reading.failed[0]).toMatchObject({ address: 'jane@acme.io', hard: false, status: '4.1.1' });
  });
});

describe('RFC 5965 feedback reports', () => {
  it('reads an ARF report as a complaint naming the original recipient', async () => {
    const raw = crlf(`From: feedbackloop@isp.example
To: abuse@vaultly.io
Subject: Abuse Report
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="arf"

--arf
Content-Type: text/plain

This is an email abuse report.

--arf
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: SomeFBL/1.0
Version: 1
Original-Mail-From: <sam@vaultly.io>
Original-Rcpt-To: <Jane@Acme.io>

--arf
Content-Type: message/rfc822

From: sam@vaultly.io
To: jane@acme.io
Subject: SOC 2 for Acme
Message-ID: <em_9@vaultly.io>

Hello Jane
--arf--
`);
    const { reading } = await readRawMail(raw);
    expect(reading.kind).toBe('complaint');
    expect(reading.mail_system).toBe('arf');
    expect(reading.failed.map((f) => f.address)).toEqual(['jane@acme.io']);
    expect(reading.original_message_ids).toEqual(['<em_9@vaultly.io>']);
  });
});

function plain(headers: string, body = 'Thanks, Sam. Does Thursday at 2pm work for a call?\n'): string {
  return crlf(`${headers}
Message-ID: <r1@acme.io>
In-Reply-To: <em_1@vaultly.io>
References: <em_0@vaultly.io> <em_1@vaultly.io>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

${body}`);
}

describe('RFC 3834 auto-replies and out-of-office', () => {
  it.each([
    ['Auto-Submitted: auto-replied', 'Subject: Re: SOC 2 for Acme\nAuto-Submitted: auto-replied'],
    ['X-Autoreply', 'Subject: Re: SOC 2 for Acme\nX-Autoreply: yes'],
    ['X-Autorespond', 'Subject: Re: SOC 2 for Acme\nX-Autorespond: vacation'],
    ['Precedence: auto_reply', 'Subject: Re: SOC 2 for Acme\nPrecedence: auto_reply'],
    ['an English subject', 'Subject: Out of Office: SOC 2 for Acme'],
    ['a German subject', 'Subject: Abwesenheitsnotiz: SOC 2 for Acme'],
    ['a French subject', 'Subject: =?UTF-8?Q?R=C3=A9ponse_automatique=C2=A0:_SOC_2?='],
    ['a Spanish subject', 'Subject: =?UTF-8?Q?Respuesta_autom=C3=A1tica:_SOC_2?='],
    ['an Italian subject', 'Subject: Risposta automatica: SOC 2 for Acme'],
    ['a Dutch subject', 'Subject: Automatisch antwoord: SOC 2 for Acme'],
    ['a Portuguese subject', 'Subject: =?UTF-8?Q?Resposta_autom=C3=A1tica:_SOC_2?='],
    ['a Japanese subject', 'Subject: =?UTF-8?B?6Ieq5YuV5b+c562UOiBTT0MgMg==?='],
  ])('reads %s as an auto-reply', async (_label, headers) => {
    const { reading } = await readRawMail(plain(`From: Jane Doe <jane@acme.io>\nTo: sam@vaultly.io\n${headers}`));
    expect(reading.kind).toBe('auto_reply');
    expect(reading.delayed).toBe(false);
  });

  it('does not take Auto-Submitted: no for an auto-reply', async () => {
    const { reading } = await readRawMail(plain('From: Jane Doe <jane@acme.io>\nTo: sam@vaultly.io\nSubject: Re: SOC 2\nAuto-Submitted: no'));
    expect(reading.kind).toBe('reply');
  });
});

describe('human replies that look like bounces', () => {
  it.each([
    ['a forged "Undeliverable:" subject from a normal sender', 'Subject: Undeliverable: SOC 2 for Acme'],
    ['"Re: Returned mail costs at Acme"', 'Subject: Re: Returned mail costs at Acme'],
    ['X-Failed-Recipients alone on a normal message', 'Subject: Re: SOC 2 for Acme\nX-Failed-Recipients: jane@acme.io'],
    ['a "Delivery Status Notification (Failure)" subject', 'Subject: Delivery Status Notification (Failure)'],
  ])('reads %s as a reply', async (_label, headers) => {
    const body = 'Our delivery failed to arrive: the pallets were undeliverable to jane@acme.io at the dock.\nCan you resend?\n';
    const { reading } = await readRawMail(plain(`From: Jane Doe <jane@acme.io>\nTo: sam@vaultly.io\n${headers}`, body));
    expect(reading.kind).toBe('reply');
    expect(reading.failed).toEqual([]);
    expect(reading.original_message_ids).toEqual(['<em_1@vaultly.io>', '<em_0@vaultly.io>']);
  });

  it('still reads a mailer-daemon notice that names the failed recipient as a bounce', async () => {
    const body = 'This is the mail system at host mx1.acme.io.\n\n<jane@acme.io>: host mx.acme.io said: 550 5.1.1 User unknown (in reply to RCPT TO command)\n';
    const { reading } = await readRawMail(plain('From: MAILER-DAEMON@mx1.acme.io (Mail Delivery System)\nTo: sam@vaultly.io\nSubject: Undelivered Mail Returned to Sender', body));
    expect(reading.kind).toBe('bounce');
    expect(reading.failed).toMatchObject([{ address: 'jane@acme.io', status: '5.1.1', hard: true, reason: 'user_unknown' }]);
    expect(reading.mail_system).toBe('postfix');
  });
});

describe('hostile input', () => {
  const size = 5 * 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  it.each([
    ['address characters with no end', fill('a.b-c_d+e')],
    ['at signs and dots', fill('a@b.')],
    ['angle brackets and colons', fill('<a@b:<')],
    ['DSN-looking lines', fill('Final-Recipient: rfc822; a@b.c\nAction: failed\nStatus: 5.1.1\n')],
    ['separator-looking lines', fill('----- Original message -----\n')],
    ['quoted-printable soft breaks', fill('=\n=3D=')],
  ])('reads a 5 MB body of %s in well under a second', async (_label, body) => {
    const raw = crlf(`From: MAILER-DAEMON@mx.example\nTo: sam@vaultly.io\nSubject: Undelivered Mail Returned to Sender\nContent-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n`) + body;
    const parsed = await simpleParser(Buffer.from('From: x@y.z\r\n\r\nhi\r\n'));
    const started = performance.now();
    const reading = readParsedMail(parsed, raw);
    const elapsed = performance.now() - started;
    expect(reading.kind).toBeDefined();
    expect(elapsed).toBeLessThan(1000);
  });
});
