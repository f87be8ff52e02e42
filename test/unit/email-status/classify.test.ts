import { classifyEmail, parseAddress, patternOf, type EmailFacts } from '../../../shared/email-status/classify.js';
import { addressLists } from '../../../shared/email-status/address-lists.js';
import { emailStatusOf, type EmailStatusDeps } from '../../../shared/email-status/email-status.js';
import { localMailExchangers } from '../../../shared/adapters/mail-exchangers-local.js';

const facts = (over: Partial<EmailFacts> = {}): EmailFacts => ({ mx: 'present', disposable: false, role: false, evidence: {}, accept_all_domain: false, first_name: 'Ada', last_name: 'Lovelace', ...over });

describe('classifyEmail', () => {
  test.each(['ada', 'ada@', '@acme.io', 'ada@acme', 'ada@@acme.io', 'ada lovelace@acme.io', 'ada@acme.123', 'ada@-acme.io', 'a..b@acme.io', ' ada@acme.io', `${'a'.repeat(65)}@acme.io`])('%j is invalid by syntax', (address) => {
    expect(classifyEmail(address, facts())).toEqual({ email_status: 'invalid', email_status_reason: 'syntax' });
  });

  test('a disposable domain is invalid', () => {
    expect(classifyEmail('ada@mailinator.com', facts({ disposable: true }))).toEqual({ email_status: 'invalid', email_status_reason: 'disposable_domain' });
  });

  test('a domain without mail exchangers is invalid; an unanswered lookup is only unknown', () => {
    expect(classifyEmail('ada.lovelace@acme.io', facts({ mx: 'absent' }))).toEqual({ email_status: 'invalid', email_status_reason: 'no_mail_exchanger' });
    expect(classifyEmail('ada.lovelace@acme.io', facts({ mx: 'unavailable' }))).toEqual({ email_status: 'unknown', email_status_reason: 'dns_unavailable' });
  });

  test('a hard bounce makes the address invalid until a later delivery', () => {
    expect(classifyEmail('ada.lovelace@acme.io', facts({ evidence: { bounced_at: '2026-11-02T00:00:00.000Z' } }))).toEqual({ email_status: 'invalid', email_status_reason: 'hard_bounce' });
    expect(classifyEmail('ada.lovelace@acme.io', facts({ evidence: { bounced_at: '2026-11-02T00:00:00.000Z', delivered_at: '2026-11-01T00:00:00.000Z' } })).email_status).toBe('invalid');
    expect(classifyEmail('ada.lovelace@acme.io', facts({ evidence: { bounced_at: '2026-11-01T00:00:00.000Z', delivered_at: '2026-11-02T00:00:00.000Z' } }))).toEqual({ email_status: 'valid', email_status_reason: 'delivered' });
  });

  test('a role address is unknown, whatever the domain, unless the owner’s names explain it', () => {
    expect(classifyEmail('sales@acme.io', facts({ role: true, accept_all_domain: true }))).toEqual({ email_status: 'unknown', email_status_reason: 'role_address' });
    expect(classifyEmail('art@acme.io', facts({ role: true, first_name: 'Art', last_name: 'Garfunkel', evidence: { domain_patterns: ['first'] } }))).toEqual({ email_status: 'valid', email_status_reason: 'pattern_confirmed' });
  });

  test('a catch-all domain is accept_all, unless a bounce showed that it refuses unknown recipients', () => {
    expect(classifyEmail('ada.lovelace@acme.io', facts({ accept_all_domain: true }))).toEqual({ email_status: 'accept_all', email_status_reason: 'accept_all_domain' });
    expect(classifyEmail('ada.lovelace@acme.io', facts({ accept_all_domain: true, evidence: { domain_rejects_unknown: true } }))).toEqual({ email_status: 'unknown', email_status_reason: 'unverified' });
  });

  test('a pattern a delivery confirmed makes the address valid; another pattern stays unverified', () => {
    expect(classifyEmail('ada.lovelace@acme.io', facts({ evidence: { domain_patterns: ['first.last'] } }))).toEqual({ email_status: 'valid', email_status_reason: 'pattern_confirmed' });
    expect(classifyEmail('alovelace@acme.io', facts({ evidence: { domain_patterns: ['first.last'] } }))).toEqual({ email_status: 'unknown', email_status_reason: 'unverified' });
    // Without the owner's names the pattern cannot be read.
    expect(classifyEmail('ada.lovelace@acme.io', facts({ first_name: undefined, evidence: { domain_patterns: ['first.last'] } })).email_status_reason).toBe('unverified');
  });

  test('an address with mail exchangers and no evidence is unknown (unverified)', () => {
    expect(classifyEmail('ada.lovelace@acme.io', facts())).toEqual({ email_status: 'unknown', email_status_reason: 'unverified' });
  });
});

test('patternOf reads the local part against the names, accents and punctuation aside', () => {
  expect(patternOf('zoe.obrien', 'Zoë', "O'Brien")).toBe('first.last');
  expect(patternOf('zobrien2', 'Zoë', "O'Brien")).toBe('flast');
  expect(patternOf('zoeo', 'Zoë', "O'Brien")).toBe('firstl');
  expect(patternOf('someone', 'Zoë', "O'Brien")).toBeNull();
  expect(parseAddress('Ada.Lovelace@ACME.io')).toEqual({ local: 'ada.lovelace', domain: 'acme.io' });
});

test('the lists come from the packages: a known disposable domain (and its subdomains), role local parts', async () => {
  const lists = await addressLists();
  expect(lists.isDisposableDomain('mailinator.com')).toBe(true);
  expect(lists.isDisposableDomain('eu.mailinator.com')).toBe(true);
  expect(lists.isDisposableDomain('acme.io')).toBe(false);
  expect(lists.isRoleLocalPart('sales')).toBe(true);
  expect(lists.isRoleLocalPart('Info+eu')).toBe(true);
  expect(lists.isRoleLocalPart('ada.lovelace')).toBe(false);
});

test('emailStatusOf gathers the facts through its ports, and asks nothing for a malformed address', async () => {
  const asked: string[] = [];
  const deps: EmailStatusDeps = {
    mx: async (domain) => (asked.push(`mx:${domain}`), domain === 'nomail.io' ? 'absent' : 'present'),
    evidence: async (address) => (asked.push(`evidence:${address}`), address === 'ada.lovelace@acme.io' ? { delivered_at: '2026-11-01T00:00:00.000Z' } : {}),
    lists: addressLists,
  };
  expect(await emailStatusOf('not an address', {}, deps)).toEqual({ email_status: 'invalid', email_status_reason: 'syntax' });
  expect(asked).toEqual([]);
  expect(await emailStatusOf('ada.lovelace@acme.io', {}, deps)).toEqual({ email_status: 'valid', email_status_reason: 'delivered' });
  expect(await emailStatusOf('ada@nomail.io', {}, deps)).toEqual({ email_status: 'invalid', email_status_reason: 'no_mail_exchanger' });
  expect(await emailStatusOf('ada@guerrillamail.com', {}, deps)).toEqual({ email_status: 'invalid', email_status_reason: 'disposable_domain' });
  expect(await emailStatusOf('jobs@acme.io', {}, deps)).toEqual({ email_status: 'unknown', email_status_reason: 'role_address' });
  expect(await emailStatusOf('ada.lovelace@globex.com', { first_name: 'Ada', last_name: 'Lovelace', accept_all: true }, deps)).toEqual({ email_status: 'accept_all', email_status_reason: 'accept_all_domain' });
  expect(asked).toContain('mx:nomail.io');
});

test('the local stand-in answers without DNS: .invalid names have no mail exchanger, every other name has one', async () => {
  expect(await localMailExchangers('nowhere.invalid')).toBe('absent');
  expect(await localMailExchangers('acme.io')).toBe('present');
  expect(await localMailExchangers('prospect.test')).toBe('present');
});
