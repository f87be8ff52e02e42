/**
 * Delivery reports as mail systems send them, for tests that need a bounce of one of this service's emails:
 * an RFC 3464 DSN (`multipart/report; report-type=delivery-status`) from the recipient's MX, with the
 * original's headers returned (its Message-ID names the email that bounced). The real-world variety is in the
 * corpus (test/fixtures/mail-corpus); this builds the standard shape with the test's own addresses.
 */
let n = 0;

export function dsnReport(o: { mailbox: string; recipient: string; status?: string; originalId: string | null; diagnostic?: string; action?: 'failed' | 'delayed' }): string {
  const b = `dsn-boundary-${(n += 1)}`;
  const status = o.status ?? '5.1.1';
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.prospect.test>',
    `To: ${o.mailbox}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn${n}.${Date.now()}@mx.prospect.test>`,
    'Date: Fri, 27 Nov 2026 10:00:00 +0000',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    `I'm sorry to have to inform you that your message could not be delivered to <${o.recipient}>.`,
    '',
    `--${b}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.prospect.test',
    '',
    `Final-Recipient: rfc822; ${o.recipient}`,
    `Original-Recipient: rfc822; ${o.recipient}`,
    `Action: ${o.action ?? 'failed'}`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${o.diagnostic ?? `550 ${status} <${o.recipient}>: Recipient address rejected: User unknown`}`,
    '',
    `--${b}`,
    'Content-Type: text/rfc822-headers',
    '',
    `From: ${o.mailbox}`,
    `To: ${o.recipient}`,
    'Subject: Quick question',
    ...(o.originalId ? [`Message-ID: ${o.originalId}`] : []),
    '',
    `--${b}--`,
    '',
  ].join('\r\n');
}

/** A plain-text message as a mail client sends one: `headers` (whole lines), then a UTF-8 `text/plain` body. */
export function plainMessage(headers: string[], body: string): string {
  return [...headers, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', body, ''].join('\r\n');
}
