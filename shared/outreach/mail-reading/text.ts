/**
 * Small, bounded text helpers shared by the mail reader and the older inbound triage: address and
 * message-id extraction, header unfolding and transfer decoding. Every scan here is over a bounded
 * slice and every pattern is free of nested quantifiers, so hostile input costs linear time.
 */

/** The most of one text part that is ever scanned (the brief's ~200 KB per part). */
export const MAX_PART_SCAN = 200_000;
/** RFC 5322 bounds a line at 998 characters; our own Message-IDs are far shorter. */
export const MAX_MESSAGE_ID_LENGTH = 998;

/**
 * One mailbox address. Bounded parts keep matching linear on hostile input (a long run of address
 * characters with no "@" would otherwise backtrack quadratically).
 */
const ADDRESS_RE = /([A-Za-z0-9._%+'!#$&*/=?^`{|}~-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8})/;
const ADDRESS_RE_G = new RegExp(ADDRESS_RE.source, 'g');

/** The first address in (the first 1,000 characters of) `text`, lower-cased, or null. */
export function addressIn(text: string): string | null {
  const match = ADDRESS_RE.exec(text.slice(0, 1000));
  return match?.[1] ? cleanAddress(match[1]) : null;
}

function cleanAddress(address: string): string {
  return address.replace(/^[.'`]+/, '').replace(/[.-]+$/, '').toLowerCase();
}

/** Every address in `text` (bounded to MAX_PART_SCAN), lower-cased, with its offset, in order. */
export function addressesIn(text: string, limit = 200): { address: string; index: number }[] {
  const out: { address: string; index: number }[] = [];
  const re = new RegExp(ADDRESS_RE_G.source, 'g');
  const body = text.slice(0, MAX_PART_SCAN);
  for (let m = re.exec(body); m && out.length < limit; m = re.exec(body)) {
    out.push({ address: cleanAddress(m[1]!), index: m.index });
  }
  return out;
}

/** `Name <addr@x>` or bare `addr@x` → `addr@x` (lower-cased); '' when there is none. */
export function addressOf(from: string): string {
  const value = (from ?? '').slice(0, 2000);
  const angle = /<([^<>]{1,400})>/.exec(value);
  return (angle?.[1] ? addressIn(angle[1]) : null) ?? addressIn(value) ?? '';
}

/** The `<…>` message ids in an In-Reply-To or References value, in order, without duplicates. */
export function extractMessageIds(headerValue: string | null | undefined): string[] {
  if (!headerValue) return [];
  const ids: string[] = [];
  for (const match of headerValue.matchAll(/<[^<>\s]+>/g)) {
    // Longer than any id we send (and than a DynamoDB key may hold): it cannot name one of our emails.
    if (match[0].length > MAX_MESSAGE_ID_LENGTH) continue;
    if (!ids.includes(match[0])) ids.push(match[0]);
  }
  return ids;
}

/** A Message-ID header value as `<id>`: bracketed ids as they are, a bare `local@host` bracketed; else null. */
export function messageIdOf(value: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.slice(0, 2000).trim();
  const ids = extractMessageIds(v);
  if (ids[0]) return ids[0];
  const bare = /^([^\s<>@]{1,900}@[^\s<>@]{1,900})$/.exec(v);
  return bare && bare[1]!.length + 2 <= MAX_MESSAGE_ID_LENGTH ? `<${bare[1]}>` : null;
}

/** Lower-case header name → values (unfolded), from a header block. Bounded to `max` characters. */
export function parseHeaderBlock(block: string, max = 256_000): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  const lines = block.slice(0, max).split('\n');
  let name: string | null = null;
  let value = '';
  const flush = () => {
    if (name === null) return;
    const list = headers.get(name);
    if (list) list.push(value.trim());
    else headers.set(name, [value.trim()]);
  };
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if ((line.startsWith(' ') || line.startsWith('\t')) && name !== null) {
      if (value.length < 8000) value += ' ' + line.trim();
      continue;
    }
    const colon = line.indexOf(':');
    const candidate = colon > 0 && colon <= 76 ? line.slice(0, colon) : '';
    if (!candidate || !/^[!-9;-~]+$/.test(candidate)) {
      // A broken fold (a parameter line without leading white space) still belongs to the header above.
      if (name !== null && value.length < 8000) value += ' ' + line.trim();
      continue;
    }
    flush();
    name = candidate.toLowerCase();
    value = line.slice(colon + 1);
  }
  flush();
  return headers;
}

/** `type/subtype` (lower-case) and its parameters (lower-case names, unquoted values). */
export function parseContentType(value: string | undefined): { type: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  if (!value) return { type: '', params };
  const v = value.slice(0, 4000);
  const typeMatch = /^\s*([A-Za-z0-9!#$&^_.+-]{1,100}\/[A-Za-z0-9!#$&^_.+-]{1,100})/.exec(v);
  const type = (typeMatch?.[1] ?? '').toLowerCase();
  const rest = typeMatch ? v.slice(typeMatch[0].length) : v;
  for (const m of rest.matchAll(/([A-Za-z0-9_*.-]{1,80})\s*=\s*(?:"([^"]{0,1000})"|([^;\s]{0,1000}))/g)) {
    params.set(m[1]!.toLowerCase(), (m[2] ?? m[3] ?? '').trim());
  }
  return { type, params };
}

function charsetDecoder(charset: string | undefined): { decode(input: Uint8Array): string } {
  try {
    return new TextDecoder((charset || 'utf-8').trim().toLowerCase(), { fatal: false });
  } catch {
    return new TextDecoder('utf-8', { fatal: false });
  }
}

/** Quoted-printable → bytes (from a latin1 string), linear. */
function decodeQuotedPrintable(text: string): Buffer {
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 61 /* = */) {
      const next = text.slice(i + 1, i + 3);
      if (next === '\r\n' || next.startsWith('\n')) {
        i += next.startsWith('\n') ? 1 : 2;
        continue;
      }
      if (/^[0-9A-Fa-f]{2}$/.test(next)) {
        out[n++] = parseInt(next, 16);
        i += 2;
        continue;
      }
    }
    out[n++] = c & 0xff;
  }
  return out.subarray(0, n);
}

/**
 * A part's body (a latin1 string: one char per byte of the raw message) decoded by its
 * Content-Transfer-Encoding and charset, cut to `max` characters.
 */
export function decodeBody(body: string, transferEncoding: string | undefined, charset: string | undefined, max = MAX_PART_SCAN): string {
  const cte = (transferEncoding ?? '').trim().toLowerCase();
  let bytes: Buffer;
  if (cte === 'base64') bytes = Buffer.from(body.slice(0, Math.ceil((max * 4) / 3) + 8), 'base64');
  else if (cte === 'quoted-printable') bytes = decodeQuotedPrintable(body.slice(0, max * 3));
  else bytes = Buffer.from(body.slice(0, max * 2), 'latin1');
  return charsetDecoder(charset).decode(bytes).slice(0, max);
}

/** RFC 2047 encoded words in a header value, decoded (bounded); the value unchanged when there are none. */
export function decodeWords(value: string): string {
  let v = value.slice(0, 4000);
  // Raw 8-bit header text read one char per byte: take it as UTF-8 when it is.
  if (/[\x80-\xff]/.test(v) && !/[^\x00-\xff]/.test(v)) {
    const utf8 = Buffer.from(v, 'latin1').toString('utf8');
    if (!utf8.includes('\ufffd')) v = utf8;
  }
  if (!v.includes('=?')) return v;
  return v
    .replace(/\?=\s{1,20}=\?/g, '?==?')
    .replace(/=\?([^?\s]{1,40})\?([BbQq])\?([^?\s]{0,2000})\?=/g, (_all, charset: string, enc: string, text: string) => {
      try {
        const bytes =
          enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : decodeQuotedPrintable(text.replace(/_/g, ' '));
        return charsetDecoder(charset.split('*')[0]).decode(bytes);
      } catch {
        return text;
      }
    });
}

/** Crude, linear HTML → text for notices that come only as HTML. */
export function htmlToText(html: string): string {
  return html
    .slice(0, MAX_PART_SCAN)
    .replace(/<(?:br|\/p|\/div|\/tr|\/li|\/h[1-6])[^>]{0,200}>/gi, '\n')
    .replace(/<[^<>]{0,2000}>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}
