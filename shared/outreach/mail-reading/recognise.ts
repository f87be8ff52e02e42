import { addressesIn, addressIn, addressOf, decodeWords, extractMessageIds, MAX_MESSAGE_ID_LENGTH, messageIdOf } from './text.js';
import { verdictOf, type FailureReason } from './status.js';
import { header, type MailView } from './view.js';

export type MailKind = 'reply' | 'bounce' | 'auto_reply' | 'complaint';

export interface FailedRecipient {
  /** Lower-case email address. */
  address: string;
  /** RFC 3463 enhanced status ("5.1.1") when known: from Status:, the diagnostic text, or inferred from the reason. */
  status: string | null;
  /** user unknown / host unknown / mailbox gone ⇒ true; full, temporary (4.x.x), policy, spam, too large ⇒ false. */
  hard: boolean;
  /** One of FailureReason (see status.ts). */
  reason: FailureReason;
  /** The remote server's text, at most 500 characters. */
  diagnostic: string | null;
}

export interface MailReading {
  kind: MailKind;
  failed: FailedRecipient[];
  delayed: boolean;
  original_message_ids: string[];
  mail_system: string | null;
}

const MAX_LINES = 4000;
const MAX_DIAGNOSTIC = 500;

// ── Senders and subjects ────────────────────────────────────────────────────────────────────────────

const DAEMON_LOCAL = /^(?:mailer-?daemon|mail-?daemon|mailerdaemon|postmaster|poostmaster|post_master|double-bounce|mdaemon|mail-?delivery(?:-?system|-?subsystem)?|deliverystatus|mail\.?delivery)$/i;
const LIST_ADMIN_LOCAL = /(?:-admin|-owner|-bounces?|-request)$|^owner-/i;
const DAEMON_NAME = /\b(?:mailer[- ]?daemon|mail delivery (?:system|subsystem|service)|postmaster|mail administrator|system administrator|mail system)\b/i;

export const BOUNCE_SUBJECT: RegExp[] = [
  /undeliver(?:ed|able)/i,
  /returned mail|returning message|returned to sender/i,
  /delivery (?:status notification|notification|failure|failed|has failed|problem|report)/i,
  /mail delivery (?:failed|failure|subsystem|system)/i,
  /failure notice|failed delivery|delivery failure|non[- ]?delivery|could not be delivered|couldn't be delivered|not (?:be )?delivered|message not delivered/i,
  /mail system error|mail(?:er)? error|delivery status|status notification|rejected|warning: could not send|delayed mail|blocked/i,
  /unzustellbar|nicht zustellbar|non remis|non délivré|no entregado|no se pudo entregar|impossibile recapitare|niet bezorgd|onbestelbaar|não entregue|недоставлен|доставлен|配信|エラー|失敗|退信|退回/i,
];

const AUTO_REPLY_SUBJECT: RegExp[] = [
  /\bout of (?:the )?office\b|\booo\b|\bautomatic reply\b|\bauto[- ]?reply\b|\bauto[- ]?respon(?:se|der)\b|^\s*auto\s*:|\bautoreply\b|\bautorespons/i,
  /\b(?:on|away on) (?:vacation|holiday|leave|annual leave|parental leave)\b|\baway (?:until|from|till)\b|\bvacation (?:reply|notice|message)\b|\babsence\b|\bout of town\b/i,
  /abwesenheit|automatische antwort|\babwesend\b|nicht im büro|außer haus/i, // de
  /réponse automatique|absence du bureau|absent du bureau|\babsent\b|message d'absence|en congés?\b/i, // fr
  /respuesta automática|respuesta automatica|fuera de la oficina|fuera de oficina|\bausente\b|de vacaciones/i, // es
  /risposta automatica|fuori (?:sede|ufficio)|assente|in ferie/i, // it
  /automatisch antwoord|\bafwezig\b|niet aanwezig|buiten kantoor|met vakantie/i, // nl
  /resposta automática|resposta automatica|ausência|ausente do escritório|fora do escritório|de férias/i, // pt
  /自動応答|自動返信|自動送信|不在|休暇/, // ja
  /自动回复|自動回覆|自動回复|不在办公室/, // zh
  /자동 ?회신|자동 ?응답|부재/, // ko
  /automatiskt svar|frånvaro|automatisk svar|fraværende|fravær|poissa|automaattinen vastaus|automatyczna odpowiedź|poza biurem|nieobecn|автоответ|автоматический ответ|нет на месте|в отпуске|otomatik yanıt|ofis dışında/i, // sv, da/no, fi, pl, ru, tr
];

const AUTO_REPLY_BODY: RegExp[] = [
  /\bI(?:'m| am) (?:currently )?out of (?:the )?office\b/i,
  /\bI(?:'m| am) (?:currently )?(?:away|on (?:vacation|holiday|annual leave|parental leave|leave))\b/i,
  /\bI will be out of (?:the )?office\b/i,
  /\bI(?:'ll| will) (?:have limited|not have) access to (?:my )?e-?mail\b/i,
  /\bthis is an automat(?:ed|ic) (?:reply|response|message)\b/i,
  /\bich bin (?:derzeit |bis .{1,40} )?nicht im büro\b/i,
  /\bje suis (?:actuellement )?absente?\b/i,
  /\bestoy fuera de la oficina\b/i,
];

const HEADER_AUTO = ['x-autoreply', 'x-autorespond', 'x-autoresponse', 'x-autoreply-from', 'x-mail-autoreply', 'x-vacation', 'x-fc-machinegenerated'];

// ── Returned-message separators (a line that starts the copy of the original in a plain-text bounce) ──

const SEPARATORS: RegExp[] = [
  /^\s*-{2,}.{0,80}(?:original message|copy of (?:the |your )?message|message (?:text )?follows|returned message|undelivered message|message headers|headers? (?:of|follow)|below this line|original mail|unsent message|returned mail).{0,80}$/i,
  /^\s*\|?-{5,}\s*message text follows/i,
  /^\s*(?:original message headers|the original message was|original message follows|unsent message below|message headers follow|the headers of your message|your message reads|returned message|original message)\s*:?\s*\.?\s*$/i,
  /^\s*-{3,}\s*(?:the )?(?:following is|original|header)/i,
  /^\s*=+\s*(?:original|returned)/i,
];
const HEADER_START = /^(?:Return-Path|Received|X-Original-To|Delivered-To|DKIM-Signature|ARC-Seal|Message-I[Dd]):[ \t]?\S/;

/** Lines of the notice before the returned copy of the original message (bounded). */
function cutNotice(text: string): { notice: string; returned: string } {
  const lines = text.slice(0, 200_000).split('\n', MAX_LINES);
  let offset = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!.slice(0, 1000);
    const prevBlank = i === 0 || lines[i - 1]!.trim() === '';
    if (i > 0 && (SEPARATORS.some((re) => re.test(line)) || (prevBlank && HEADER_START.test(line)))) {
      return { notice: text.slice(0, offset), returned: text.slice(offset, offset + 200_000) };
    }
    offset += lines[i]!.length + 1;
  }
  return { notice: text.slice(0, 200_000), returned: '' };
}

// ── DSN fields (RFC 3464) ───────────────────────────────────────────────────────────────────────────

interface DsnRecord {
  address: string | null;
  action: string | null;
  status: string | null;
  diagnostic: string | null;
}

/**
 * Per-recipient records of delivery-status text. Continuation lines are unfolded; records are the
 * blank-line separated blocks that name a recipient, and a block naming several (no blank line between
 * recipients) is split at each Final-Recipient. Fields before the first recipient field of a block
 * (some systems put Action: first) belong to its first record.
 */
function parseDsn(text: string): DsnRecord[] {
  const lines = text.slice(0, 200_000).split('\n', MAX_LINES);
  const blocks: [string, string][][] = [[]];
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    const block = blocks[blocks.length - 1]!;
    if (line.trim() === '') {
      if (block.length) blocks.push([]);
      continue;
    }
    if (/^[ \t]/.test(line) && block.length) {
      const last = block[block.length - 1]!;
      if (last[1].length < 4000) last[1] += ' ' + line.trim();
      continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]{0,60})[ \t]*:[ \t]*(.*)$/.exec(line.slice(0, 4000));
    if (m) block.push([m[1]!.toLowerCase(), m[2]!]);
  }
  const records: DsnRecord[] = [];
  for (const block of blocks) {
    const starts = block.map(([n], i) => (n === 'final-recipient' ? i : -1)).filter((i) => i >= 0);
    const hasOriginal = block.some(([n]) => n === 'original-recipient');
    if (!starts.length && !hasOriginal) continue;
    const cuts = starts.length > 1 ? [0, ...starts.slice(1), block.length] : [0, block.length];
    for (let k = 0; k + 1 < cuts.length; k += 1) {
      const fields = block.slice(cuts[k], cuts[k + 1]);
      const r: DsnRecord = { address: null, action: null, status: null, diagnostic: null };
      let original: string | null = null;
      let actual: string | null = null;
      for (const [name, value] of fields) {
        if (name === 'final-recipient') r.address ??= addressIn(value.replace(/^[^;]{0,40};/, ''));
        else if (name === 'original-recipient') original ??= addressIn(value.replace(/^[^;]{0,40};/, ''));
        else if (name === 'x-actual-recipient') actual ??= addressIn(value.replace(/^[^;]{0,40};/, ''));
        else if (name === 'action') r.action ??= value.trim().toLowerCase().split(/[\s(;]/)[0] || null;
        else if (name === 'status') r.status ??= /\b[245]\.\d{1,3}\.\d{1,3}\b/.exec(value)?.[0] ?? null;
        else if (name === 'diagnostic-code' || name === 'x-remote-diagnostic' || name === 'x-diagnostic') {
          r.diagnostic ??= value.replace(/^[^;]{0,40};\s*/, '').trim().slice(0, 4000) || null;
        }
      }
      r.address ??= original ?? actual;
      if (r.address && (r.action || r.status || r.diagnostic)) records.push(r);
    }
  }
  return records;
}

// ── Prose (vendor formats) ──────────────────────────────────────────────────────────────────────────

interface ProseFailure {
  address: string;
  diagnostic: string;
}

/** A line that announces a list of failed recipients on the following lines. */
const MARKERS: RegExp[] = [
  /(?:failed|failure|recipients? or groups|following (?:address|recipient)(?:\(?e?s\)?)?|could not be delivered to|not be delivered to|permanent fatal errors?|delivery to the following|undeliverable to|unable to deliver (?:the )?message to|delivery (?:has )?failed to|no valid recipients|failed addresses follow|could not reach|not reach the following|could not be reached|was undeliverable|errors? occurred|delivery problems?|mail to the following|were not delivered|couldn't be delivered to|adresse|destinataire|empfänger|destinatario|получател|宛先|recipient address(?:es)?|invalid recipients?|unknown recipients?)\b.{0,60}:?\s*$/i,
];
const FAILURE_WORDS = /fail|exceed|error|unable|could not|couldn't|can't|cannot|not (?:be )?delivered|undeliver|reject|refused|denied|unknown|not found|does not exist|doesn't exist|invalid|blocked|bounced|problem|quota|full|permanent|temporar|timed? ?out|expired|no such|not (?:a )?member|unzustellbar|échec|impossible|недостав|不明|エラー|존재하지/i;

function excludedAddress(address: string, exclude: Set<string>, loose = false): boolean {
  if (loose && exclude.has(address)) return true;
  const local = address.slice(0, address.indexOf('@'));
  if (/^(?:mailer-?daemon|mail-?daemon|mailerdaemon)$/i.test(local)) return true;
  return loose && (DAEMON_LOCAL.test(local) || /^(?:abuse|noreply|no-reply|nobody|root)$/i.test(local));
}

function diagnosticAfter(lines: string[], from: number, firstLine: string): string {
  const parts: string[] = [];
  if (firstLine.trim()) parts.push(firstLine.trim());
  let blanks = 0;
  for (let i = from; i < lines.length && i < from + 12; i += 1) {
    const line = lines[i]!.trim();
    if (line === '') {
      blanks += 1;
      if (blanks >= 2 || (blanks === 1 && parts.length > 0 && i > from + 1)) {
        if (parts.join(' ').length > 20) break;
      }
      continue;
    }
    if (SEPARATORS.some((re) => re.test(line)) || /^\s*<[^<>]{3,320}>:?\s*$/.test(line)) break;
    // The next recipient's entry ("addr": / addr: / <addr>:) ends this one.
    if (parts.length && /^"?<?[^\s"<>@]{1,200}@[^\s"<>:]{1,200}>?"?:/.test(line)) break;
    parts.push(line);
    if (parts.join(' ').length > MAX_DIAGNOSTIC) break;
  }
  return parts.join(' ').replace(/\s+/g, ' ').slice(0, MAX_DIAGNOSTIC);
}

function proseFailures(notice: string, exclude: Set<string>, sender: string): ProseFailure[] {
  const lines = notice.split('\n', MAX_LINES).map((l) => l.replace(/\r$/, '').slice(0, 2000));
  const found = new Map<string, string>();
  const add = (address: string | null, diagnostic: string) => {
    if (!address || address === sender || excludedAddress(address, exclude) || found.has(address)) return;
    found.set(address, diagnostic);
  };
  // A. Postfix / qmail / OpenSMTPD / Courier: "<addr>: text" or "<addr>" alone, then the reason.
  for (let i = 0; i < lines.length; i += 1) {
    const m = /^\s*(?:-{1,3}\s*)?<([^<>\s]{3,320})>(?:\s*\(expanded from[^)]{0,400}\))?\s*(?:[:.,]\s*(.*)|\.{3}\s*(.*)|\s*)$/.exec(lines[i]!);
    if (m) add(addressIn(m[1]!), diagnosticAfter(lines, i + 1, m[2] ?? m[3] ?? ''));
    // Exim / OpenSMTPD / 1&1: "addr: reason" (the address alone before the colon).
    const bare = /^\s*([^\s<>:"()]{1,200}@[^\s<>:"()]{1,200}):\s*(.*)$/.exec(lines[i]!);
    if (bare) add(addressIn(bare[1]!), diagnosticAfter(lines, i + 1, bare[2] ?? ''));
  }
  if (found.size) return [...found].map(([address, diagnostic]) => ({ address, diagnostic }));
  // B. Sendmail transcript: "550 5.1.1 <addr>... User unknown" / "addr... reason".
  for (let i = 0; i < lines.length; i += 1) {
    const m = /^\s*(?:[245]\d\d[ -](?:[245]\.\d{1,3}\.\d{1,3}\s+)?)?<?([^\s<>]{1,200}@[^\s<>]{1,200}?)>?\.\.\.\s*(.*)$/.exec(lines[i]!);
    if (m) add(addressIn(m[1]!), diagnosticAfter(lines, i + 1, lines[i]!.trim()));
  }
  if (found.size) return [...found].map(([address, diagnostic]) => ({ address, diagnostic }));
  // C. A marker line, then the failed addresses on the next lines, then the reason.
  for (let i = 0; i < lines.length; i += 1) {
    if (!MARKERS.some((re) => re.test(lines[i]!))) continue;
    // The marker line itself may carry the address ("could not be delivered to: x@y").
    const onLine = addressesIn(lines[i]!).map((a) => a.address).filter((a) => !excludedAddress(a, exclude));
    if (onLine[0]) {
      add(onLine[0], diagnosticAfter(lines, i + 1, ''));
      continue;
    }
    let seen = 0;
    for (let j = i + 1; j < lines.length && j < i + 10; j += 1) {
      const line = lines[j]!;
      if (line.trim() === '') {
        if (seen) break;
        continue;
      }
      const addresses = addressesIn(line, 5).map((a) => a.address).filter((a) => !excludedAddress(a, exclude));
      if (!addresses.length) {
        if (seen) break;
        if (j > i + 3) break;
        continue;
      }
      seen += 1;
      const rest = line.slice(line.indexOf(addresses[0]!.slice(0, 1)) + 1);
      add(addresses[0]!, diagnosticAfter(lines, j + 1, /\s(?:on|at)\s/i.test(rest) ? '' : rest.replace(/^[^\s]*\s*/, '')));
    }
    if (found.size) break;
  }
  if (found.size) return [...found].map(([address, diagnostic]) => ({ address, diagnostic }));
  // D. An SMTP transcript or a details list naming the envelope recipient ("RCPT TO: addr").
  for (let i = 0; i < lines.length; i += 1) {
    const m = /RCPT TO:?\s*<?([^\s<>]{1,200}@[^\s<>]{1,200}?)>?(?:\s|$|:)/i.exec(lines[i]!);
    if (m) {
      add(addressIn(m[1]!), diagnosticAfter(lines, i + 1, ''));
      break;
    }
  }
  if (found.size) return [...found].map(([address, diagnostic]) => ({ address, diagnostic }));
  // E. The first address on (or just after) a line with failure wording.
  for (let i = 0; i < lines.length; i += 1) {
    const window = lines.slice(Math.max(0, i - 2), i + 1).join(' ');
    if (!FAILURE_WORDS.test(window)) continue;
    const addresses = addressesIn(lines[i]!, 5).map((a) => a.address).filter((a) => !excludedAddress(a, exclude, true));
    if (addresses[0]) {
      add(addresses[0], diagnosticAfter(lines, i + 1, lines[i]!.trim()));
      break;
    }
  }
  return [...found].map(([address, diagnostic]) => ({ address, diagnostic }));
}

// ── Mail system ─────────────────────────────────────────────────────────────────────────────────────

function mailSystem(view: MailView, sender: string, text: string, kind: MailKind, dsn: boolean): string | null {
  if (kind === 'complaint') return 'arf';
  if (kind === 'reply') return null;
  const h = (n: string) => view.headers.has(n);
  const t = text.slice(0, 6000).toLowerCase();
  const domain = sender.slice(sender.indexOf('@') + 1);
  const checks: [boolean, string][] = [
    [/amazonses\.com$/.test(domain) || h('x-ses-outgoing'), 'amazonses'],
    [/google(?:mail)?\.com$/.test(domain) || /google tried to deliver|gmail/.test(t), 'gmail'],
    [h('x-ms-exchange-message-is-ndr') || /office ?365|microsoft 365|protection\.outlook\.com|outlook\.com/.test(t), 'office365'],
    [/microsoft exchange|exchange server/.test(t) || h('x-ms-exchange-organization-scl') || /exchange/i.test(header(view.headers, 'x-mimeole') ?? ''), 'exchange'],
    [/yahoo/.test(domain) || /yahoo/.test(t), 'yahoo'],
    [/this is the mail system at host|x-postfix|postfix/.test(t) || h('x-postfix-queue-id'), 'postfix'],
    [/qmail/.test(t), 'qmail'],
    [/this message was created automatically by mail delivery software|exim/.test(t) || h('x-failed-recipients'), 'exim'],
    [/transcript of session follows|the original message was received at|sendmail/.test(t), 'sendmail'],
    [/courier mail server|courier/.test(t), 'courier'],
    [/domino|lotus notes/.test(t), 'domino'],
    [/gmx\./.test(domain), 'gmx'],
    [/mail\.ru$/.test(domain), 'mailru'],
    [/yandex/.test(domain), 'yandex'],
    [/zoho/.test(domain), 'zoho'],
    [/opensmtpd/.test(t), 'opensmtpd'],
    [/mimecast/.test(t), 'mimecast'],
    [/messagelabs|symantec/.test(t), 'messagelabs'],
    [/sendgrid/.test(t), 'sendgrid'],
    [/aol\.com$/.test(domain), 'aol'],
  ];
  const hit = checks.find(([ok]) => ok);
  if (hit) return hit[1];
  if (dsn) return 'rfc3464';
  if (kind === 'auto_reply') return 'rfc3834';
  return null;
}

// ── The reader ──────────────────────────────────────────────────────────────────────────────────────

function ownText(text: string): string {
  const lines = (text ?? '').slice(0, 200_000).split('\n', MAX_LINES);
  const kept: string[] = [];
  for (const line of lines) {
    if (/^On .{4,200} wrote:\s*$/.test(line) || /^-{2,}\s*Original Message\s*-{2,}/i.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').slice(0, 4000);
}

function isAutoReplyByHeaders(view: MailView): boolean {
  const auto = header(view.headers, 'auto-submitted');
  if (auto !== undefined && !/^\s*no\b/i.test(auto)) return true;
  if (HEADER_AUTO.some((n) => view.headers.has(n))) return true;
  if (/^\s*reply\b/i.test(header(view.headers, 'x-autogenerated') ?? '')) return true;
  if (/autoresponder|autoreply/i.test(header(view.headers, 'x-post-messageclass') ?? '')) return true;
  return /^\s*(?:auto_reply|bulk|junk)\b/i.test(header(view.headers, 'precedence') ?? '');
}

function originalIds(view: MailView, texts: string[], extra: string[]): string[] {
  const ids: string[] = [];
  const push = (id: string | null) => {
    if (id && id.length <= MAX_MESSAGE_ID_LENGTH && !ids.includes(id)) ids.push(id);
  };
  for (const r of view.returned) push(messageIdOf(r.get('message-id')?.[0]));
  for (const id of extra) push(id);
  // A header block quoted in the text (the copy after a plain-text bounce's separator, first).
  for (const t of texts) {
    const m = t ? /^[ \t>]{0,4}Message-I[Dd][ \t]*:[ \t]*(\S[^\n]{0,1000})$/im.exec(t.slice(0, 200_000)) : null;
    if (m) {
      push(messageIdOf(m[1]));
      break;
    }
  }
  push(messageIdOf(header(view.headers, 'in-reply-to')) ?? extractMessageIds(header(view.headers, 'in-reply-to'))[0] ?? null);
  for (const id of extractMessageIds(header(view.headers, 'references')).reverse()) push(id);
  return ids;
}

/** The To addresses of the returned message: a returned part, else an inline header block after the notice. */
function returnedTo(view: MailView, returnedText: string): string[] {
  for (const r of view.returned) {
    const to = r.get('to')?.[0];
    if (to) return addressesIn(to, 5).map((a) => a.address);
  }
  const m = /^[ \t]{0,4}To[ \t]*:[ \t]*([^\n]{1,1000})$/m.exec(returnedText.slice(0, 50_000));
  return m ? addressesIn(m[1]!, 5).map((a) => a.address) : [];
}

export function recognise(view: MailView): MailReading {
  const h = view.headers;
  const fromRaw = decodeWords(header(h, 'from') ?? '');
  const sender = addressOf(fromRaw);
  const subject = decodeWords(header(h, 'subject') ?? '');
  const returnPath = header(h, 'return-path') ?? '';
  const local = sender.slice(0, sender.indexOf('@'));
  const nullReturnPath = /^\s*<\s*>\s*$/.test(returnPath) || /^\s*<?mailer-daemon\b/i.test(returnPath);
  const systemSender =
    (local !== '' && DAEMON_LOCAL.test(local)) ||
    (sender === '' && /mailer-daemon|<\s*>/i.test(fromRaw)) ||
    DAEMON_NAME.test(fromRaw) ||
    nullReturnPath ||
    (/^(?:no-?reply|sysadmin|mailadmin|mail-?admin)$/i.test(local) && BOUNCE_SUBJECT.some((re) => re.test(decodeWords(header(h, 'subject') ?? ''))));
  const listAdmin = local !== '' && LIST_ADMIN_LOCAL.test(local);
  const bounceSubject = BOUNCE_SUBJECT.some((re) => re.test(subject));
  const text = view.notice.join('\n\n');
  const { notice, returned } = cutNotice(text);
  const exclude = new Set<string>([sender, addressOf(returnPath), ...addressesIn(header(h, 'to') ?? '', 20).map((a) => a.address)].filter(Boolean));
  const dsnExtraIds: string[] = [];
  for (const d of view.dsn) {
    const m = /^X-Original-Message-ID:[ \t]*(\S[^\n]{0,1000})$/im.exec(d.slice(0, 100_000));
    if (m) dsnExtraIds.push(messageIdOf(m[1]) ?? '');
  }
  const finish = (kind: MailKind, failed: FailedRecipient[], delayed = false, isDsn = false): MailReading => ({
    kind,
    failed,
    delayed,
    original_message_ids: originalIds(view, kind === 'bounce' || kind === 'complaint' || delayed ? [returned, text] : [returned], dsnExtraIds.filter(Boolean)),
    mail_system: mailSystem(view, sender, text, kind, isDsn),
  });

  // 1. Complaints: RFC 5965 feedback reports, and the two common non-standard ones.
  const hotmailComplaint = view.returned.find((r) => r.has('x-hmxmroriginalrecipient'));
  const appleUnsubscribe = /^\s*unsubscribe\s*$/i.test(subject) && /sent this email to unsubscribe/i.test(text.slice(0, 2000));
  if (view.reportType === 'feedback-report' || view.feedback.length > 0 || hotmailComplaint || appleUnsubscribe) {
    const named = new Set<string>();
    for (const f of view.feedback) {
      for (const m of f.slice(0, 100_000).matchAll(/^(?:Original-Rcpt-To|Removal-Recipient)[ \t]*:[ \t]*([^\n]{1,400})$/gim)) {
        const a = addressIn(m[1]!);
        if (a) named.add(a);
      }
    }
    if (hotmailComplaint) {
      const a = addressIn(hotmailComplaint.get('x-hmxmroriginalrecipient')?.[0] ?? '');
      if (a) named.add(a);
    }
    if (!named.size) {
      for (const r of view.returned) {
        const a = addressIn(r.get('to')?.[0] ?? '');
        if (a) {
          named.add(a);
          break;
        }
      }
    }
    // Apple Mail's unsubscribe request comes from the recipient who no longer wants the mail.
    if (!named.size && appleUnsubscribe && sender) named.add(sender);
    const feedbackType = /^Feedback-Type[ \t]*:[ \t]*([^\n]{1,100})$/im.exec(view.feedback.join('\n').slice(0, 100_000))?.[1]?.trim() ?? null;
    return finish(
      'complaint',
      [...named].map((address) => ({ address, status: null, hard: false, reason: 'other' as const, diagnostic: feedbackType })),
    );
  }

  // 2. Delivery status notifications (RFC 3464): the per-recipient fields decide.
  const isDsnReport = view.reportType === 'delivery-status' || view.dsn.length > 0;
  let records = view.dsn.flatMap(parseDsn);
  if (!records.length && (isDsnReport || systemSender) && /^(?:Final|Original)-Recipient[ \t]*:/im.test(text.slice(0, 200_000))) {
    records = parseDsn(text);
  }
  const prose = isDsnReport || systemSender || listAdmin ? proseFailures(notice, exclude, sender) : [];
  const proseDiag = new Map(prose.map((p) => [p.address, p.diagnostic]));
  const delayWording =
    /\bdelay(?:ed)?\b|still being retried|will (?:continue|keep) (?:trying|to try)|warning: could not send|not yet been delivered|will retry|will be retried/i.test(subject + '\n' + notice.slice(0, 3000)) &&
    !/permanent|giving up|gave up|failed permanently|could not be delivered|returned to sender|has been returned|too long in (?:the )?queue|cannot send message for|aborted after/i.test(subject + '\n' + notice.slice(0, 6000));

  if (records.length) {
    const failedRecords = records.filter((r) => {
      const a = r.action ?? '';
      if (a === 'failed' || a === 'expired' || a === 'failure' || a === 'error') return true;
      if (a) return false;
      return !!r.status && /^[45]/.test(r.status) && !delayWording;
    });
    const delayedRecords = records.filter((r) => r.action === 'delayed' || (!r.action && r.status?.startsWith('4') && delayWording));
    if (failedRecords.length) {
      const failed: FailedRecipient[] = [];
      for (const r of failedRecords) {
        if (!r.address || failed.some((f) => f.address === r.address)) continue;
        const diagnostic = (r.diagnostic || proseDiag.get(r.address) || '').replace(/\s+/g, ' ').trim().slice(0, MAX_DIAGNOSTIC) || null;
        const v = verdictOf(r.status, diagnostic ?? proseDiag.get(r.address) ?? null, notice, r.action === 'expired');
        failed.push({ address: r.address, status: v.status, hard: v.hard, reason: v.reason, diagnostic });
      }
      return finish('bounce', failed, false, true);
    }
    if (delayedRecords.length) return finish('auto_reply', [], true, true);
    if (records.some((r) => r.action && /^(?:delivered|relayed|expanded|deliverable)$/.test(r.action))) return finish('auto_reply', [], false, true);
  }

  // 3. Vendor prose from a mail system (daemon sender, null return path, or a report part).
  const evidence = isDsnReport || ((systemSender || listAdmin) && (bounceSubject || prose.length > 0));
  if (evidence) {
    let failures = prose;
    if (!failures.length) {
      const xFailed = header(h, 'x-failed-recipients');
      const a = xFailed ? addressIn(xFailed) : null;
      if (a) failures = [{ address: a, diagnostic: '' }];
    }
    if (!failures.length) {
      // Nothing names the recipient but the returned copy of the message: its single To address.
      const to = returnedTo(view, returned).filter((a) => !exclude.has(a));
      if (to.length === 1) failures = [{ address: to[0]!, diagnostic: notice.replace(/\s+/g, ' ').trim().slice(0, MAX_DIAGNOSTIC) }];
    }
    if (failures.length && (bounceSubject || isDsnReport || FAILURE_WORDS.test(notice.slice(0, 20_000)))) {
      if (delayWording) return finish('auto_reply', [], true, isDsnReport);
      const failed = failures.map(({ address, diagnostic }) => {
        const v = verdictOf(null, diagnostic || null, notice, false);
        return { address, status: v.status, hard: v.hard, reason: v.reason, diagnostic: diagnostic || null };
      });
      return finish('bounce', failed, false, isDsnReport);
    }
    if (delayWording && (isDsnReport || bounceSubject)) return finish('auto_reply', [], true, isDsnReport);
    if (isDsnReport || (systemSender && bounceSubject)) return finish('bounce', [], false, isDsnReport);
  }

  // 4. Auto-replies (RFC 3834 headers, vacation headers, out-of-office subjects and phrasing).
  if (isAutoReplyByHeaders(view) || AUTO_REPLY_SUBJECT.some((re) => re.test(subject)) || AUTO_REPLY_BODY.some((re) => re.test(ownText(text)))) {
    return finish('auto_reply', []);
  }
  return finish('reply', []);
}
