import { ValidationError, type ErrorDetail } from '../core/errors.js';
import { once } from '../core/once.js';
import { ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES, type AttachmentInput, type AttachmentType } from './test-email.schema.js';
import type { AttachmentMeta } from './model.js';

/**
 * The byte-level rules of a test email's attachments (docs/decisions.md#test-emails-pilot): strict standard base64,
 * non-empty, each file and all together within 1 MiB decoded, an extension of the declared type, and bytes
 * that are what the declared type says (magic-byte detection by `file-type`; text must be UTF-8 and must
 * not be a binary format in disguise). Contents never appear in an error or a log line.
 */
export interface DecodedAttachment extends AttachmentMeta {
  bytes: Buffer;
}

// Standard alphabet, padded to whole quanta: no whitespace, no URL-safe characters, no `data:` prefix.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeStrict(text: string): Buffer | null {
  if (!STRICT_BASE64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  // Non-zero padding bits decode leniently; only the canonical encoding of the bytes is accepted.
  return bytes.toString('base64') === text ? bytes : null;
}

// Loaded with the first attachment, not at init: most test emails carry none (a lazy package in Lambda,
// docs/benchmarks.md "Cold starts").
const loadDetector = /* @__PURE__ */ once(() => import('file-type').then((m) => m.fileTypeFromBuffer));

async function bytesMatch(type: AttachmentType, bytes: Buffer): Promise<boolean> {
  const detected = await (await loadDetector())(bytes);
  if (type === 'text/plain' || type === 'text/csv') {
    if (detected) return false;
    try {
      utf8.decode(bytes);
    } catch {
      return false;
    }
    return !bytes.includes(0);
  }
  return detected?.mime === type;
}

function extensionMatches(filename: string, type: AttachmentType): boolean {
  const lower = filename.toLowerCase();
  return (ATTACHMENT_TYPES[type] as readonly string[]).some((ext) => lower.endsWith(ext) && lower.length > ext.length);
}

export async function decodeAttachments(items: AttachmentInput[]): Promise<DecodedAttachment[]> {
  const details: ErrorDetail[] = [];
  const out: DecodedAttachment[] = [];
  let total = 0;
  for (const [i, a] of items.entries()) {
    const path = (field: string) => `attachments.${i}.${field}`;
    if (a.filename === '.' || a.filename === '..') details.push({ path: path('filename'), message: 'filename must name a file' });
    else if (!extensionMatches(a.filename, a.content_type)) {
      details.push({ path: path('filename'), message: `extension must be one of ${ATTACHMENT_TYPES[a.content_type].join(', ')} for ${a.content_type}` });
    }
    const bytes = decodeStrict(a.content_base64);
    if (!bytes) {
      details.push({ path: path('content_base64'), message: 'must be standard base64 with padding, without whitespace or a data-URL prefix' });
      continue;
    }
    if (bytes.length === 0) {
      details.push({ path: path('content_base64'), message: 'file must not be empty' });
      continue;
    }
    if (bytes.length > MAX_ATTACHMENT_BYTES) {
      details.push({ path: path('content_base64'), message: `file must be at most ${MAX_ATTACHMENT_BYTES} bytes decoded` });
      continue;
    }
    total += bytes.length;
    if (!(await bytesMatch(a.content_type, bytes))) {
      details.push({ path: path('content_base64'), message: `contents are not ${a.content_type}${a.content_type.startsWith('text/') ? ' (UTF-8 text)' : ''}` });
      continue;
    }
    out.push({ filename: a.filename, content_type: a.content_type, size_bytes: bytes.length, bytes });
  }
  if (total > MAX_ATTACHMENT_BYTES) details.push({ path: 'attachments', message: `all files together must be at most ${MAX_ATTACHMENT_BYTES} bytes decoded` });
  if (details.length) throw new ValidationError('Invalid attachment.', details);
  return out;
}
