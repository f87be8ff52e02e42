/**
 * Failure reason and hard/soft verdict from an RFC 3463 enhanced status code, an SMTP reply code and the
 * remote server's text. The reasons are a small fixed set:
 *   user_unknown  – no such mailbox, mailbox gone or moved (x.1.1, x.1.3, x.1.6, x.1.10 on the local part)   hard
 *   host_unknown  – no such domain / host, unroutable domain (x.1.2, x.4.4)                                    hard
 *   mailbox_full  – over quota (x.2.2)                                                                         soft
 *   suspended     – mailbox disabled, inactive or suspended (x.2.1)                                            soft
 *   too_large     – message too big (x.2.3, x.3.4)                                                            soft
 *   spam_block    – refused as spam, blocklisted sender or IP, reputation (x.7.1 with spam wording, x.7.x)     soft
 *   policy        – refused by policy: relaying, authentication (SPF/DKIM/DMARC), content, security (x.7.x)    soft
 *   temporary     – any 4.x.x, and network / routing / expiry failures (x.4.x)                                  soft
 *   other         – anything else                                                                              soft
 * A 4.x.x status is never hard, whatever the text says.
 */
export type FailureReason =
  | 'user_unknown'
  | 'host_unknown'
  | 'mailbox_full'
  | 'suspended'
  | 'too_large'
  | 'spam_block'
  | 'policy'
  | 'temporary'
  | 'other';

export const HARD_REASONS: ReadonlySet<FailureReason> = new Set(['user_unknown', 'host_unknown']);

const STATUS_RE = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
const REPLY_RE = /(?:^|[^0-9.])([245][0-5][0-9])(?:[ -]|$)/;

/** The first enhanced status code in a text ("5.1.1"), or null. */
export function statusIn(text: string): string | null {
  return STATUS_RE.exec(text.slice(0, 4000))?.[0] ?? null;
}

/** The first SMTP reply code in a text ("550"), or null. */
export function replyCodeIn(text: string): string | null {
  return REPLY_RE.exec(text.slice(0, 4000))?.[1] ?? null;
}

/** Reason from the words of a diagnostic, most specific first; null when nothing matches. */
export function reasonFromText(text: string): FailureReason | null {
  const t = text.slice(0, 8000).toLowerCase();
  if (/mailbox (?:is )?full|mailbox_full|over ?quota|quota (?:exceeded|exceed)|exceeded (?:the |their |his |her )?(?:storage|quota)|(?:storage|disk) (?:space|quota)|insufficient (?:disk|storage|system storage)|not enough (?:disk )?space|mailbox size limit|mail ?box (?:has )?exceeded|too many messages|user is over|full mailbox|mailfolder is full|is over (?:its|the|his|her) (?:quota|storage)/.test(t)) return 'mailbox_full';
  if (/message (?:size|is too large|too large|too big|length exceeds|exceeds)|exceeds (?:the )?(?:maximum|max|size|message size)|size limit|too large|message too big|mesg too big|exceeded maximum|maximum message size/.test(t)) return 'too_large';
  if (/host (?:or domain name )?not found|unknown host|host unknown|no such domain|domain (?:name )?(?:not found|does not exist|doesn't exist|is not valid|unknown)|domain not exists|name service error|unrouteable mail domain|unroutable domain|no mx (?:record|host)|nxdomain|dns (?:error|lookup failed)|domain has no|hostname (?:lookup|not found)|could not find (?:mx|a mail exchanger)|no route to host|does not accept mail \(null mx\)|illegal host\/domain|no valid hosts|domain is not reachable|check the domain|mail for .{1,100} loops back|invalid domain/.test(t)) return 'host_unknown';
  if (/sender (?:address )?(?:rejected|verify|verification|domain)|bad sender|sender is not allowed|mail from command/.test(t)) return 'policy';
  if (/(?:account|mailbox|user|address)(?: has been| is| was)? (?:disabled|suspended|inactive|deactivated|frozen|locked|blocked by admin)|not active|temporarily (?:disabled|deactivated)|account expired|is expired|mailbox (?:is )?inactive/.test(t)) return 'suspended';
  if (/user unknown|unknown user|no valid recipients|check if (?:the )?address is correct|invalid final delivery userid|invalid userid|unknown (?:recipient|address|mailbox|local ?part|account)|no such (?:user|mailbox|recipient|address|account|person)|(?:user|mailbox|recipient|address|account|addressee)(?: address)? (?:does not exist|doesn't exist|not found|unknown|unavailable|invalid|not valid|not listed|is not a known user|rejected)|does not exist|doesn't exist|invalid (?:recipient|mailbox|address|user)|recipient (?:address )?rejected|not a valid (?:mailbox|recipient|user)|mailbox unavailable|mailbox not (?:found|available)|no mailbox|not our customer|no longer (?:available|active|in use|with|exists?|valid)|has (?:been )?(?:moved|deleted|removed|closed|terminated)|couldn't be found|could not be found|wasn't found|was not found|address not found|unknown or illegal alias|undeliverable address|bad destination mailbox|no such local user|unrouteable address|user not found|addressee unknown|not listed in|is not a valid|recipient not found|user doesn't have|invalid address|retired|no account|this user doesn't have|destination address rejected|address rejected|user reject|relay access denied.{0,20}unknown|unknown recipient/.test(t)) return 'user_unknown';
  if (/spam|junk|black ?list|block ?list|blacklisted|blocklisted|listed (?:in|on|at|by)|\brbl\b|dnsbl|spamhaus|spamcop|barracuda|reputation|bulk e?mail|unsolicited|dynamic ip|poor reputation|cloudmark|proofpoint|sorbs|abuse/.test(t)) return 'spam_block';
  if (/virus|malware|policy|not allowed|not permitted|denied|refused|rejected|prohibited|forbidden|authenticat|\bspf\b|\bdkim\b|dmarc|relay(?:ing)? (?:not|denied|prohibited)|not authorized|unauthorized|tls|security|content|filter|blocked|not accepted|not a member|are not member|restrict|sender (?:address )?(?:rejected|verify)|verification/.test(t)) return 'policy';
  if (/try again|temporar|timed? ?out|timeout|connection (?:refused|reset|lost|closed)|could not connect|unable to connect|too long in (?:the )?queue|expired|cannot send message for|giving up|aborted after|retry|deferred|too many (?:connections|recipients)|rate limit|too much mail|throttl|server busy|system error|network|routing|lost connection/.test(t)) return 'temporary';
  return null;
}

/** Reason from a status code alone (RFC 3463 subject.detail), or null when the code is vague (x.0.0, x.y.0). */
export function reasonFromStatus(status: string): FailureReason | null {
  const m = STATUS_RE.exec(status);
  if (!m) return null;
  const [cls, subject, detail] = [m[1]!, Number(m[2]), Number(m[3])];
  if (cls === '2') return null;
  if (subject === 1) {
    if (detail === 1 || detail === 3 || detail === 6 || detail === 10) return 'user_unknown';
    if (detail === 7 || detail === 8) return 'policy'; // the sender's address
    if (detail === 2) return 'host_unknown';
    return null;
  }
  if (subject === 2) {
    if (detail === 1) return 'suspended';
    if (detail === 2) return 'mailbox_full';
    if (detail === 3) return 'too_large';
    return null;
  }
  if (subject === 3) return detail === 4 ? 'too_large' : null;
  if (subject === 4) return detail === 4 ? 'host_unknown' : 'temporary';
  if (subject === 7) return detail === 0 ? null : 'policy';
  return null;
}

function afterData(text: string): boolean {
  return /(?:end of |after )?data command|after end of data|smtp command data|-{3,}\s*smtp command data|in reply to end of data/i.test(text.slice(0, 6000)) &&
    !/rcpt to command|after rcpt|in reply to rcpt/i.test(text.slice(0, 6000));
}

export interface Verdict {
  status: string | null;
  reason: FailureReason;
  hard: boolean;
}

/** Reason → an enhanced status to report when the message gave none (RFC 3463). */
const INFERRED: Record<FailureReason, string> = {
  user_unknown: '5.1.1',
  host_unknown: '5.1.2',
  mailbox_full: '5.2.2',
  suspended: '5.2.1',
  too_large: '5.3.4',
  spam_block: '5.7.1',
  policy: '5.7.1',
  temporary: '4.0.0',
  other: '5.0.0',
};

/**
 * The verdict for one failed recipient. `status` is the DSN's Status field (may be vague or missing),
 * `diagnostic` the remote server's text, `context` the surrounding notice (consulted last).
 */
export function verdictOf(status: string | null, diagnostic: string | null, context: string, temporaryHint = false): Verdict {
  const diag = diagnostic ?? '';
  const fromDiag = statusIn(diag);
  let code = status && STATUS_RE.test(status) ? STATUS_RE.exec(status)![0] : null;
  // A vague Status (x.0.0) gives way to a precise code in the diagnostic text.
  if ((!code || /\.0\.0$/.test(code)) && fromDiag && !/\.0\.0$/.test(fromDiag)) code = fromDiag;
  if (!code && fromDiag) code = fromDiag;
  const reply = replyCodeIn(diag);
  const textReason = reasonFromText(diag);
  const statusReason = code ? reasonFromStatus(code) : null;
  let reason: FailureReason | null = null;
  // Precise user/host/mailbox codes win; the 5.7.x family and vague codes defer to the words.
  // The remote server's words are more specific than the code the reporting MTA chose (sisimai reads them
  // the same way): 5.2.1 "User unknown" is user_unknown, 5.1.1 "over quota" is mailbox_full. The code
  // decides only when the words say nothing we know.
  if (textReason) reason = textReason === 'temporary' && statusReason === 'policy' ? 'policy' : textReason;
  else if (statusReason) reason = statusReason;
  // Refused after DATA: the address was accepted at RCPT, so "unknown user" there is a content filter.
  if ((reason === 'user_unknown' || (!reason && !statusReason)) && afterData(diag + ' ' + context.slice(0, 3000))) reason = 'policy';
  if (!reason) reason = reasonFromText(context.slice(0, 6000)) ?? 'other';
  if (!code) {
    const temporary = temporaryHint || reply?.startsWith('4') || false;
    code = temporary ? INFERRED[reason].replace(/^5/, '4') : INFERRED[reason];
    if (reason === 'temporary' && !temporary && reply?.startsWith('5')) code = '5.0.0';
  }
  const soft = code.startsWith('4') || (reply?.startsWith('4') ?? false) || temporaryHint;
  if (code.startsWith('4') && reason !== 'mailbox_full' && reason !== 'suspended' && reason !== 'too_large') reason = 'temporary';
  return { status: code, reason, hard: !soft && HARD_REASONS.has(reason) };
}
