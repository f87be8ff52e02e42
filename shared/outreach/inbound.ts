/**
 * Inbound mail triage for sequences: a reply stops the contact's remaining steps, a bounce marks the
 * enrollment bounced, an auto-reply (out of office, autoresponders) changes nothing. Best effort from
 * headers, sender and subject; the body is consulted only for common out-of-office phrasing.
 */
export type InboundClassification = 'reply' | 'bounce' | 'auto_reply';

export interface InboundMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  headers: Record<string, string>;
  in_reply_to?: string | null;
}

const BOUNCE_SENDER = /^(mailer-daemon|mail-daemon|mailerdaemon|postmaster)@/i;

const BOUNCE_SUBJECTS: RegExp[] = [
  /undelivered mail returned to sender/i,
  /delivery status notification \(failure\)/i,
  /mail delivery (failed|failure)/i,
  /mail delivery subsystem/i,
  /^\s*undeliverable\s*:/i,
  /\bundeliverable mail\b/i,
  /\breturned mail\b/i,
  /\bdelivery (has )?failed\b/i,
  /\bdelivery failure\b/i,
  /\bfailure notice\b/i,
  /\bmessage not delivered\b/i,
  /\bcould not be delivered\b/i,
  /\bunzustellbar\b/i,
  /\bnon remis\b/i,
];

const AUTO_REPLY_SUBJECTS: RegExp[] = [
  /\bout of (the )?office\b/i,
  /\bautomatic reply\b/i,
  /\bauto[- ]?reply\b/i,
  /\bauto[- ]?response\b/i,
  /^\s*auto\s*:/i,
  /\babwesenheitsnotiz\b/i,
  /\babwesend\b/i,
  /\bOOO\b/i,
  /\bréponse automatique\b/i,
  /\brespuesta automática/i,
  /\brisposta automatica\b/i,
  /\bon (vacation|holiday|leave)\b/i,
];

const AUTO_REPLY_BODIES: RegExp[] = [
  /\bI(?:'m| am) (?:currently )?out of (?:the )?office\b/i,
  /\bI(?:'m| am) (?:currently )?(?:away|on (?:vacation|holiday|annual leave|parental leave|leave))\b/i,
  /\bI will be out of (?:the )?office\b/i,
  /\bI(?:'ll| will) (?:have limited|not have) access to (?:my )?e-?mail\b/i,
  /\bthis is an automat(?:ed|ic) (?:reply|response|message)\b/i,
  /\bich bin (?:derzeit |bis .{1,40} )?nicht im büro\b/i,
];

function lowerCaseHeaders(headers: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    out.set(name.trim().toLowerCase(), String(value ?? ''));
  }
  return out;
}

/**
 * One mailbox address. Bounded parts keep matching linear on hostile input (a long run of address
 * characters with no "@" would otherwise backtrack quadratically).
 */
const ADDRESS_RE = /([A-Za-z0-9._%+'!#$&*/=?^`{|}~-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8})/;
const MAX_SCAN = 200_000;

function addressIn(text: string): string | null {
  const match = ADDRESS_RE.exec(text.slice(0, 1000));
  return match?.[1] ? match[1].replace(/[.-]+$/, '').toLowerCase() : null;
}

/** `Name <addr@x>` or bare `addr@x` → `addr@x` (lower-cased); '' when there is none. */
export function addressOf(from: string): string {
  const value = (from ?? '').slice(0, 2000);
  const angle = /<([^<>]{1,400})>/.exec(value);
  return (angle?.[1] ? addressIn(angle[1]) : null) ?? addressIn(value) ?? '';
}

/** Drops quoted lines and anything after a reply header, so a quoted original cannot decide the class. */
function ownText(text: string): string {
  const lines = (text ?? '').slice(0, MAX_SCAN).replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    if (/^On .{4,200} wrote:\s*$/.test(line) || /^-{2,}\s*Original Message\s*-{2,}/i.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').slice(0, 4000);
}

function isDeliveryReport(contentType: string | undefined): boolean {
  return (
    !!contentType &&
    /multipart\/report/i.test(contentType) &&
    /report-type\s*=\s*"?delivery-status"?/i.test(contentType)
  );
}

/** A DSN that only announces a delay (`Action: delayed`) is not a final failure. */
function isDelayOnly(msg: InboundMessage): boolean {
  const text = (msg.text ?? '').slice(0, MAX_SCAN);
  return (
    /delivery status notification \(delay\)/i.test(msg.subject ?? '') ||
    (/^[ \t]*Action:[ \t]*delayed\b/im.test(text) && !/^[ \t]*Action:[ \t]*failed\b/im.test(text))
  );
}

export function classifyInbound(msg: InboundMessage): InboundClassification {
  const headers = lowerCaseHeaders(msg.headers);
  const subject = msg.subject ?? '';
  const sender = addressOf(msg.from);

  const looksLikeBounce =
    BOUNCE_SENDER.test(sender) ||
    isDeliveryReport(headers.get('content-type')) ||
    headers.has('x-failed-recipients') ||
    BOUNCE_SUBJECTS.some((re) => re.test(subject));
  if (looksLikeBounce) return isDelayOnly(msg) ? 'auto_reply' : 'bounce';

  const autoSubmitted = headers.get('auto-submitted');
  if (autoSubmitted !== undefined && !/^\s*no\b/i.test(autoSubmitted)) return 'auto_reply';
  if (headers.has('x-autoreply') || headers.has('x-autorespond') || headers.has('x-autoresponse')) {
    return 'auto_reply';
  }
  if (/^\s*(auto_reply|bulk|junk)\b/i.test(headers.get('precedence') ?? '')) return 'auto_reply';
  if (AUTO_REPLY_SUBJECTS.some((re) => re.test(subject))) return 'auto_reply';
  const body = ownText(msg.text);
  if (AUTO_REPLY_BODIES.some((re) => re.test(body))) return 'auto_reply';
  return 'reply';
}

/** The `<…>` message ids in an In-Reply-To or References value, in order, without duplicates. */
/** RFC 5322 bounds a line at 998 characters; our own Message-IDs are far shorter. */
const MAX_MESSAGE_ID_LENGTH = 998;

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

/** Best-effort address that bounced: DSN fields first, then common MTA phrasings. Lower-cased, or null. */
export function bouncedRecipient(text: string, headers: Record<string, string>): string | null {
  const body = (text ?? '').slice(0, MAX_SCAN).replace(/\r\n?/g, '\n');
  const lines = body.split('\n');
  for (const field of ['final-recipient', 'original-recipient']) {
    for (const line of lines) {
      const trimmed = line.trimStart();
      if (trimmed.slice(0, field.length + 1).toLowerCase() === `${field}:`) {
        const address = addressIn(trimmed.slice(field.length + 1));
        if (address) return address;
      }
    }
  }
  const failed = lowerCaseHeaders(headers).get('x-failed-recipients');
  if (failed) {
    const address = addressIn(failed);
    if (address) return address;
  }
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    // Postfix: "<jane@example.com>: host mx.example.com said: 550 …"
    const postfix = /^\s*<([^<>]{1,400})>:/.exec(line);
    if (postfix?.[1]) {
      const address = addressIn(postfix[1]);
      if (address) return address;
    }
    // Exim "…failed:" and Exchange "…recipients or groups:" name the address on a following line.
    if (/(?:failed|recipients or groups):\s*$/i.test(line)) {
      const next = lines.slice(i + 1, i + 4).find((l) => l.trim() !== '');
      const address = next ? addressIn(next) : null;
      if (address) return address;
    }
  }
  // Gmail: "Your message wasn't delivered to jane@example.com because …"
  const gmail = /(?:wasn't|was not|couldn't be|could not be) delivered to\s/i.exec(body);
  if (gmail) return addressIn(body.slice(gmail.index + gmail[0].length, gmail.index + gmail[0].length + 400));
  return null;
}
