/**
 * The mail-exchanger port: does `domain` publish somewhere to deliver mail? Never an SMTP conversation, only
 * DNS (docs/email-status.md). `unavailable` when the lookup could not be answered now (timeout, SERVFAIL).
 * Adapters: shared/adapters/mail-exchangers-dns.ts (AWS, the resolver of the Lambda environment) and
 * shared/adapters/mail-exchangers-local.ts (the twin and tests: deterministic, no lookup at all).
 */
/** The answer of the port for one domain. */
export type MailExchangerAnswer = 'present' | 'absent' | 'unavailable';

export type MailExchangers = (domain: string) => Promise<MailExchangerAnswer>;
