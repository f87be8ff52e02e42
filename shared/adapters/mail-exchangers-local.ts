import type { MailExchangers } from '../ports/mail-exchangers.js';

/**
 * The mail-exchanger port on the one-machine twin and in tests: no DNS query ever leaves the process. Every
 * domain of the sample directory (and any other registrable name) answers `present`, as a company's domain
 * does; a name under a special-use TLD that RFC 6761 §6.4 guarantees never resolves (`.invalid`) answers
 * `absent`. Deterministic, so tests can name a domain without mail exchangers: `nowhere.invalid`.
 */
export const NO_MX_SUFFIX = '.invalid';

export const localMailExchangers: MailExchangers = async (domain) => (domain.toLowerCase().endsWith(NO_MX_SUFFIX) ? 'absent' : 'present');
