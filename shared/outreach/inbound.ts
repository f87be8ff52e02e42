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

/** `Name <addr@x>` or bare `addr@x` → `addr@x` (lower-cased). */
export function addressOf(from: string): string {
  const angle = /<([^<>\s]+@[^<>\s]+)>/.exec(from ?? '');
  const bare = angle?.[1] ?? /[^\s<>"',;]+@[^\s<>"',;]+/.exec(from ?? '')?.[0] ?? '';
  return bare.toLowerCase();
}

/** Drops quoted lines and anything after a reply header, so a quoted original cannot decide the class. */
function ownText(text: string): string {
  const lines = (text ?? '').replace(/\r\n?/g, '\n').split('\n');
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
  const text = msg.text ?? '';
  return (
    /delivery status notification \(delay\)/i.test(msg.subject ?? '') ||
    (/^\s*Action:\s*delayed\b/im.test(text) && !/^\s*Action:\s*failed\b/im.test(text))
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
export function extractMessageIds(headerValue: string | null | undefined): string[] {
  if (!headerValue) return [];
  const ids: string[] = [];
  for (const match of headerValue.matchAll(/<[^<>\s]+>/g)) {
    if (!ids.includes(match[0])) ids.push(match[0]);
  }
  return ids;
}

const ADDRESS = String.raw`([^\s<>;"',()]+@[^\s<>;"',()]+\.[^\s<>;"',()]+)`;

function cleanAddress(raw: string): string {
  return raw.replace(/[.,;:>]+$/, '').toLowerCase();
}

/** Best-effort address that bounced: DSN fields first, then common MTA phrasings. Lower-cased, or null. */
export function bouncedRecipient(text: string, headers: Record<string, string>): string | null {
  const body = (text ?? '').replace(/\r\n?/g, '\n');
  const patterns: RegExp[] = [
    new RegExp(String.raw`^\s*Final-Recipient:\s*(?:rfc822\s*;)?\s*<?${ADDRESS}>?\s*$`, 'im'),
    new RegExp(String.raw`^\s*Original-Recipient:\s*(?:rfc822\s*;)?\s*<?${ADDRESS}>?\s*$`, 'im'),
  ];
  for (const re of patterns) {
    const match = re.exec(body);
    if (match?.[1]) return cleanAddress(match[1]);
  }
  const failed = lowerCaseHeaders(headers).get('x-failed-recipients');
  if (failed) {
    const match = new RegExp(ADDRESS).exec(failed);
    if (match?.[1]) return cleanAddress(match[1]);
  }
  const phrasings: RegExp[] = [
    // Postfix: "<jane@example.com>: host mx.example.com said: 550 …"
    new RegExp(String.raw`^\s*<${ADDRESS}>:`, 'm'),
    // Gmail: "Your message wasn't delivered to jane@example.com because …"
    new RegExp(String.raw`(?:wasn't|was not|couldn't be|could not be) delivered to\s+<?${ADDRESS}`, 'i'),
    // Exim: "  jane@example.com\n    host … [reason]" after "failed:"
    new RegExp(String.raw`failed:\s*\n\s*<?${ADDRESS}>?\s*$`, 'im'),
    // Exchange: "Delivery has failed to these recipients or groups:\n\njane@example.com"
    new RegExp(String.raw`recipients or groups:\s*\n+\s*(?:[^\n<]*<)?${ADDRESS}>?`, 'i'),
  ];
  for (const re of phrasings) {
    const match = re.exec(body);
    if (match?.[1]) return cleanAddress(match[1]);
  }
  return null;
}
