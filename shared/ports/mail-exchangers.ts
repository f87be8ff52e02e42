/**
 * The mail-exchanger port: does `domain` publish somewhere to deliver mail? Never an SMTP conversation, only
 * DNS (docs/email-status.md). `unavailable` when the lookup could not be answered now (timeout, SERVFAIL, or
 * not asked: over the account's lookup budget, past the request's deadline).
 * Adapters: shared/adapters/mail-exchangers-dns.ts (AWS, the resolver of the Lambda environment) and
 * shared/adapters/mail-exchangers-local.ts (the twin and tests: deterministic, no lookup at all).
 */
/** The answer of the port for one domain. */
export type MailExchangerAnswer = 'present' | 'absent' | 'unavailable';

export type MailExchangers = (domain: string) => Promise<MailExchangerAnswer>;

/**
 * The per-account daily lookup budget (shared/email-status/lookups.ts): take up to `wanted` lookups from the
 * account's counter of the UTC `day` (YYYY-MM-DD), never past `limit`. Answers how many were granted (0 to
 * `wanted`); the counter only ever grows by what was granted. Adapter: lookup-budget.repository.ts (DynamoDB).
 */
export type LookupBudget = (accountId: string, day: string, wanted: number, limit: number) => Promise<number>;
