import type { ParsedMail } from 'mailparser';
import { decodeBody, htmlToText, MAX_PART_SCAN, parseContentType, parseHeaderBlock } from './text.js';

/**
 * What the recogniser looks at, built either from the raw MIME (a bounded walk of our own, which sees
 * every part as sent) or from mailparser's ParsedMail (which folds `message/delivery-status` into `text`
 * and returns `message/rfc822` / `message/feedback-report` as attachments).
 */
export interface MailView {
  /** Top-level headers: lower-case name → unfolded values. */
  headers: Map<string, string[]>;
  /** The top-level content type (`multipart/report`) and its `report-type` parameter, lower-case. */
  contentType: string;
  reportType: string;
  /** Decoded text of the notice: text parts outside any returned message, plain before HTML. */
  notice: string[];
  /** Bodies of `message/delivery-status` (and `message/global-delivery-status`) parts. */
  dsn: string[];
  /** Bodies of `message/feedback-report` parts. */
  feedback: string[];
  /** Header blocks of returned messages (`message/rfc822`, `text/rfc822-headers`, `message/rfc822-headers`). */
  returned: Map<string, string[]>[];
  /** Every content type seen, in order (bounded). */
  partTypes: string[];
}

/** The most of a raw message that is walked (the service accepts messages up to 10 MB). */
const MAX_RAW = 10 * 1024 * 1024;
const MAX_PARTS = 100;
const MAX_DEPTH = 8;
const MAX_TEXT_PARTS = 12;

export function emptyView(): MailView {
  return { headers: new Map(), contentType: '', reportType: '', notice: [], dsn: [], feedback: [], returned: [], partTypes: [] };
}

export function header(headers: Map<string, string[]>, name: string): string | undefined {
  return headers.get(name)?.[0];
}

function splitEntity(s: string): { head: string; body: string } {
  if (s.startsWith('\n')) return { head: '', body: s.slice(1) };
  const i = s.indexOf('\n\n');
  return i < 0 ? { head: s, body: '' } : { head: s.slice(0, i), body: s.slice(i + 2) };
}

/** The parts of a multipart body between `--boundary` lines; linear (indexOf only). */
function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let at = body.startsWith(delimiter) ? 0 : body.indexOf(`\n${delimiter}`);
  if (at < 0) return parts;
  if (at > 0) at += 1;
  while (at >= 0 && parts.length < MAX_PARTS) {
    const afterDelimiter = at + delimiter.length;
    if (body.startsWith('--', afterDelimiter)) break; // closing delimiter
    const lineEnd = body.indexOf('\n', afterDelimiter);
    if (lineEnd < 0) break;
    const next = body.indexOf(`\n${delimiter}`, lineEnd);
    parts.push(body.slice(lineEnd + 1, next < 0 ? body.length : next));
    at = next < 0 ? -1 : next + 1;
  }
  return parts;
}

function walk(s: string, depth: number, view: MailView, top: boolean, defaultType = 'text/plain'): void {
  const { head, body } = splitEntity(s);
  const headers = parseHeaderBlock(head);
  if (top) view.headers = headers;
  const { type: declared, params } = parseContentType(header(headers, 'content-type'));
  const type = declared || defaultType;
  if (top) {
    view.contentType = type;
    view.reportType = (params.get('report-type') ?? '').toLowerCase();
  }
  if (view.partTypes.length < MAX_PARTS) view.partTypes.push(type);
  const cte = header(headers, 'content-transfer-encoding');
  const charset = params.get('charset');
  if (type.startsWith('multipart/')) {
    const boundary = params.get('boundary');
    if (!boundary || depth >= MAX_DEPTH) return;
    const childDefault = type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
    const parts = splitMultipart(body, boundary);
    for (const part of parts) walk(part, depth + 1, view, false, childDefault);
    // A multipart whose boundary never occurs (hand-trimmed or broken reports): read its body as text.
    if (!parts.length && view.notice.length < MAX_TEXT_PARTS) view.notice.push(decodeBody(body, cte, charset));
    return;
  }
  if (type === 'message/rfc822' || type === 'message/global' || type === 'message/partial' || type === 'text/rfc822-headers' || type === 'message/rfc822-headers') {
    const enc = (cte ?? '').trim().toLowerCase();
    const inner = enc === 'base64' || enc === 'quoted-printable' ? decodeBody(body, cte, 'latin1', 65_536) : body.slice(0, 65_536);
    const returnedHead = type.endsWith('headers') ? inner : splitEntity(inner.replace(/^\n{1,20}/, '')).head;
    view.returned.push(parseHeaderBlock(returnedHead, 65_536));
    return;
  }
  if (type === 'message/delivery-status' || type === 'message/global-delivery-status') {
    view.dsn.push(decodeBody(body, cte, charset || 'utf-8'));
    return;
  }
  if (type === 'message/feedback-report') {
    view.feedback.push(decodeBody(body, cte, charset || 'utf-8'));
    return;
  }
  // A part with no MIME headers of its own but a message's (Received, Message-ID, From): a returned
  // message some systems attach without declaring message/rfc822.
  if (!top && !type.startsWith('multipart/') && headers.has('message-id') && (headers.has('received') || (headers.has('from') && headers.has('subject')))) {
    view.returned.push(headers);
    return;
  }
  if (type.startsWith('text/') && view.notice.length < MAX_TEXT_PARTS) {
    if (type === 'text/plain' || type === 'text/html' || type === 'text/enriched') {
      const text = decodeBody(body, cte, charset);
      view.notice.push(type === 'text/html' ? `\u0000html\u0000${htmlToText(text)}` : text);
    }
  }
}

/** Plain text parts first; HTML parts (already turned to text) only when there is no plain one. */
function orderNotice(view: MailView): void {
  const html = view.notice.filter((t) => t.startsWith('\u0000html\u0000')).map((t) => t.slice(6));
  const plain = view.notice.filter((t) => !t.startsWith('\u0000html\u0000'));
  view.notice = plain.some((t) => t.trim() !== '') ? plain : [...plain, ...html];
}

/** A bounded walk over the raw MIME message. */
export function viewOfRaw(raw: Buffer | string): MailView {
  const bytes = typeof raw === 'string' ? Buffer.from(raw.slice(0, MAX_RAW), 'utf8') : raw;
  const text = bytes.toString('latin1', 0, Math.min(bytes.length, MAX_RAW)).replace(/\r\n?/g, '\n');
  const view = emptyView();
  walk(text, 0, view, true);
  orderNotice(view);
  return view;
}

/** The same view from mailparser's result (used when the raw message is not at hand). */
export function viewOfParsed(parsed: ParsedMail): MailView {
  const view = emptyView();
  view.headers = parseHeaderBlock((parsed.headerLines ?? []).map((l) => l.line).join('\n'));
  const { type, params } = parseContentType(header(view.headers, 'content-type'));
  view.contentType = type || 'text/plain';
  view.reportType = (params.get('report-type') ?? '').toLowerCase();
  view.partTypes.push(view.contentType);
  const text = (parsed.text ?? '').slice(0, MAX_PART_SCAN);
  if (text.trim() !== '') view.notice.push(text);
  else if (typeof parsed.html === 'string') view.notice.push(htmlToText(parsed.html));
  for (const a of parsed.attachments ?? []) {
    const ct = (a.contentType ?? '').toLowerCase();
    view.partTypes.push(ct);
    const content = Buffer.isBuffer(a.content) ? a.content : Buffer.from(String(a.content ?? ''));
    if (ct === 'message/delivery-status' || ct === 'message/global-delivery-status') view.dsn.push(content.toString('utf8', 0, MAX_PART_SCAN));
    else if (ct === 'message/feedback-report') view.feedback.push(content.toString('utf8', 0, MAX_PART_SCAN));
    else if (ct === 'message/rfc822' || ct === 'message/global' || ct === 'text/rfc822-headers' || ct === 'message/rfc822-headers') {
      const inner = content.toString('latin1', 0, 65_536).replace(/\r\n?/g, '\n');
      view.returned.push(parseHeaderBlock(ct.endsWith('headers') ? inner : splitEntity(inner.replace(/^\n{1,20}/, '')).head, 65_536));
    }
  }
  return view;
}
