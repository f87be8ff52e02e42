import type { MailExchangerAnswer } from '../ports/mail-exchangers.js';

/**
 * How far a found email can be trusted (issue 34, docs/decisions.md#email-status), decided from what the service
 * knows without ever talking to the address's mail server: its syntax, its domain's mail exchangers, the
 * disposable-domain and role-address lists, and the evidence of the service's own sending.
 *
 * Pure: every fact is handed in (email-status.ts gathers them through ports), so the rules are tested alone.
 * First rule that applies wins:
 * 1. `invalid`: not an address (`syntax`); a hard bounce is the latest word on this address (`hard_bounce`);
 *    a throwaway domain (`disposable_domain`); a domain with no mail exchanger (`no_mail_exchanger`).
 * 2. `valid`: a send to this address was delivered, later than any bounce (`delivered`).
 * 3. `unknown`: the domain's mail exchangers could not be looked up now (`dns_unavailable`); a role address
 *    (`info@`, `sales@`…), which reaches a team or nobody, not the person (`role_address`), unless the
 *    owner's names explain the local part.
 * 4. `accept_all`: the domain accepts every recipient, so no answer proves a mailbox (`accept_all_domain`),
 *    unless a hard bounce from the domain has shown that it rejects unknown recipients.
 * 5. `valid`: another address of the domain built on the same pattern (first.last, flast…) was delivered
 *    (`pattern_confirmed`).
 * 6. `unknown`: the domain takes mail, but nothing has confirmed this mailbox (`unverified`).
 */
export type EmailStatus = 'valid' | 'accept_all' | 'unknown' | 'invalid';
export type EmailStatusReason =
  | 'syntax'
  | 'hard_bounce'
  | 'disposable_domain'
  | 'no_mail_exchanger'
  | 'delivered'
  | 'dns_unavailable'
  | 'role_address'
  | 'accept_all_domain'
  | 'pattern_confirmed'
  | 'unverified';

export const FOUND_EMAIL_STATUSES = ['valid', 'accept_all', 'unknown', 'invalid'] as const satisfies readonly EmailStatus[];
export const FOUND_EMAIL_STATUS_REASONS = [
  'syntax',
  'hard_bounce',
  'disposable_domain',
  'no_mail_exchanger',
  'delivered',
  'dns_unavailable',
  'role_address',
  'accept_all_domain',
  'pattern_confirmed',
  'unverified',
] as const satisfies readonly EmailStatusReason[];

/** The two fields every result that carries a person's email carries beside it. */
export interface EmailStatusFields {
  email_status: EmailStatus;
  email_status_reason: EmailStatusReason;
}


/** What the service's own sending has taught it (mail-evidence.repository.ts); no account is named in it. */
export interface MailEvidence {
  /** Latest hard bounce of this address, ISO time. */
  bounced_at?: string;
  /** Latest delivery to this address, ISO time. */
  delivered_at?: string;
  /** Patterns of the domain's addresses that were delivered (see `patternOf`). */
  domain_patterns?: readonly string[];
  /** A hard bounce from the domain: its server refuses unknown recipients, so it is no catch-all. */
  domain_rejects_unknown?: boolean;
}

export interface EmailFacts {
  mx: MailExchangerAnswer;
  disposable: boolean;
  role: boolean;
  evidence: MailEvidence;
  /** The directory marks the domain as accepting every recipient. */
  accept_all_domain: boolean;
  /** The person's names, when known: the address's pattern is read against them. */
  first_name?: string;
  last_name?: string;
}

// The pragmatic subset of RFC 5321/5322 that mail providers accept: a dot-atom local part of at most 64
// characters and a domain of LDH labels with a letter TLD, 254 characters at most in all.
const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/** The address split into local part and lower-case domain, or null when it is not a deliverable address. */
export function parseAddress(address: string): { local: string; domain: string } | null {
  if (address.length > 254 || address !== address.trim()) return null;
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1).toLowerCase();
  if (local.length > 64 || !LOCAL.test(local)) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !/^[a-z]{2,63}$/i.test(labels.at(-1)!)) return null;
  return { local: local.toLowerCase(), domain };
}

const letters = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

/**
 * The pattern of a local part against the person's names (`first.last`, `flast`, `first`…), or null when
 * the names do not explain it. Compared on letters only, so "O'Brien" and "obrien" match.
 */
export function patternOf(local: string, firstName: string | undefined, lastName: string | undefined): string | null {
  const f = letters(firstName ?? '');
  const l = letters(lastName ?? '');
  if (!f || !l) return null;
  const bare = local.toLowerCase().replace(/\d+$/, '');
  const candidates: [string, string][] = [
    ['first.last', `${f}.${l}`],
    ['first_last', `${f}_${l}`],
    ['first-last', `${f}-${l}`],
    ['firstlast', `${f}${l}`],
    ['f.last', `${f[0]}.${l}`],
    ['flast', `${f[0]}${l}`],
    ['firstl', `${f}${l[0]}`],
    ['last.first', `${l}.${f}`],
    ['lastf', `${l}${f[0]}`],
    ['first', f],
    ['last', l],
  ];
  return candidates.find(([, shape]) => shape === bare)?.[0] ?? null;
}

export function classifyEmail(address: string, facts: EmailFacts): EmailStatusFields {
  const status = (email_status: EmailStatus, email_status_reason: EmailStatusReason): EmailStatusFields => ({ email_status, email_status_reason });
  const parsed = parseAddress(address);
  if (!parsed) return status('invalid', 'syntax');
  const { bounced_at, delivered_at } = facts.evidence;
  if (bounced_at && !(delivered_at && delivered_at > bounced_at)) return status('invalid', 'hard_bounce');
  if (facts.disposable) return status('invalid', 'disposable_domain');
  if (facts.mx === 'absent') return status('invalid', 'no_mail_exchanger');
  if (delivered_at) return status('valid', 'delivered');
  if (facts.mx === 'unavailable') return status('unknown', 'dns_unavailable');
  const pattern = patternOf(parsed.local, facts.first_name, facts.last_name);
  // A local part the owner's names explain is theirs, even when it reads like a role ("Art", "Grant").
  if (facts.role && !pattern) return status('unknown', 'role_address');
  if (facts.accept_all_domain && !facts.evidence.domain_rejects_unknown) return status('accept_all', 'accept_all_domain');
  if (pattern && facts.evidence.domain_patterns?.includes(pattern)) return status('valid', 'pattern_confirmed');
  return status('unknown', 'unverified');
}
