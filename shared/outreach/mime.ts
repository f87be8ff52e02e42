/**
 * Raw RFC 5322 messages for outreach sends (SES SendRawEmail / SESv2 Raw content, or SMTP). The
 * message carries no Bcc header: Bcc recipients travel only as envelope destinations (`envelopeFor`).
 */
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { ValidationError } from '../core/errors.js';
import { escapeHtml } from './plain-html.js';

export interface MailAddress {
  email: string;
  name?: string;
}

export interface BuildMimeOptions {
  /** `<local@domain>`, used verbatim as Message-ID (replies thread on it). */
  messageId: string;
  from: MailAddress;
  /** The visible To: one address, or several (a copy addressed to its own recipients). */
  to: MailAddress | MailAddress[];
  cc: string[];
  /** Accepted for symmetry with the send request; never written into the message. */
  bcc: string[];
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. List-Unsubscribe and List-Unsubscribe-Post. */
  headers: Record<string, string>;
  date: Date;
  /** Threading for follow-up steps. */
  inReplyTo?: string;
  references?: string[];
  /** Files attached as they are (test emails); never inline. */
  attachments?: MimeAttachment[];
}

export interface MimeAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

const MESSAGE_ID = /^<[^<>\s@]+@[^<>\s@]+>$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]*$/;
/** Headers the composer owns; a caller-supplied copy could smuggle recipients or break the structure. */
const RESERVED_HEADERS = new Set([
  'from',
  'sender',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'message-id',
  'date',
  'in-reply-to',
  'references',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
]);

function assertNoLineBreak(field: string, value: string): void {
  if (/[\r\n]/.test(value)) throw new ValidationError(`${field} must not contain line breaks`);
}

function address(a: MailAddress): { name: string; address: string } {
  assertNoLineBreak('address', a.email);
  assertNoLineBreak('name', a.name ?? '');
  return { name: a.name?.trim() ?? '', address: a.email.trim() };
}

export async function buildMime(opts: BuildMimeOptions): Promise<Buffer> {
  if (!MESSAGE_ID.test(opts.messageId)) {
    throw new ValidationError('messageId must look like <id@domain>');
  }
  assertNoLineBreak('subject', opts.subject);
  for (const value of [...opts.cc, opts.replyTo ?? '', opts.inReplyTo ?? '', ...(opts.references ?? [])]) {
    assertNoLineBreak('header value', value);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers)) {
    if (!HEADER_NAME.test(name)) throw new ValidationError(`invalid header name: ${name}`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new ValidationError(`header ${name} cannot be overridden`);
    assertNoLineBreak(name, value);
    headers[name] = value;
  }
  const composer = new MailComposer({
    messageId: opts.messageId,
    date: opts.date,
    from: address(opts.from),
    to: Array.isArray(opts.to) ? opts.to.map(address) : address(opts.to),
    cc: opts.cc.length > 0 ? opts.cc : undefined,
    replyTo: opts.replyTo,
    inReplyTo: opts.inReplyTo,
    references: opts.references,
    subject: opts.subject,
    text: opts.text,
    html: opts.html,
    headers,
    attachments: opts.attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content, contentDisposition: 'attachment' as const })),
    // Bodies are strings we produced; never let content descriptors reach the disk or network.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}

/** Envelope for the raw message: every visible recipient plus the Bcc list, which is not in the headers. */
export function envelopeFor(opts: Pick<BuildMimeOptions, 'from' | 'to' | 'cc' | 'bcc'>): {
  from: string;
  to: string[];
} {
  const to: string[] = [];
  for (const email of [...(Array.isArray(opts.to) ? opts.to : [opts.to]).map((a) => a.email), ...opts.cc, ...opts.bcc]) {
    const trimmed = email.trim();
    if (trimmed && !to.some((seen) => seen.toLowerCase() === trimmed.toLowerCase())) to.push(trimmed);
  }
  return { from: opts.from.email.trim(), to };
}

function assertUnsubscribeUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('unsubscribe url must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ValidationError('unsubscribe url must use https (or http locally)');
  }
  if (/[\s<>]/.test(url)) throw new ValidationError('unsubscribe url must not contain spaces or angle brackets');
  return parsed;
}

/**
 * The `List-Unsubscribe` header, with RFC 8058's `List-Unsubscribe-Post: List-Unsubscribe=One-Click` when the
 * message has one recipient. `oneClick: false` for a message several people get with the same link (the
 * lead's message with its CC recipients on Gmail and Graph): a one-click POST cannot say who pressed it, so
 * the link leads to a page where the visitor chooses their own address (docs/outreach.md, CC section).
 */
export function unsubscribeHeaders(url: string, opts: { oneClick?: boolean } = {}): {
  'List-Unsubscribe': string;
  'List-Unsubscribe-Post'?: string;
} {
  assertUnsubscribeUrl(url);
  return {
    'List-Unsubscribe': `<${url}>`,
    ...(opts.oneClick === false ? {} : { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }),
  };
}

/**
 * Adds a short footer to both bodies (HTML before `</body>` when the body is a document): the unsubscribe
 * link, and beside it the privacy page (`privacyUrl`, shared/privacy/page-url.ts), where the recipient sees
 * what is held about their address, opts out of every account's outreach or asks for erasure.
 */
export function appendUnsubscribeFooter(body: { text: string; html: string }, url: string, privacyUrl: string): {
  text: string;
  html: string;
} {
  assertUnsubscribeUrl(url);
  assertUnsubscribeUrl(privacyUrl);
  const sentence = "If you'd rather not hear from me again";
  const text = `${body.text.replace(/\s+$/, '')}\n\n--\n${sentence}, unsubscribe here: ${url}\nTo see or remove the data held about you: ${privacyUrl}\n`;
  const footer = `<p>--<br>\n${sentence}, <a href="${escapeHtml(url)}">unsubscribe here</a>.<br>\n<a href="${escapeHtml(privacyUrl)}">See or remove the data held about you</a>.</p>`;
  const closing = body.html.search(/<\/body>/i);
  const html =
    closing >= 0
      ? `${body.html.slice(0, closing)}${footer}\n${body.html.slice(closing)}`
      : `${body.html.replace(/\s+$/, '')}\n${footer}`;
  return { text, html };
}
