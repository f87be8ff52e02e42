import { isLocalMode } from '../core/env.js';
import type { MailExchangers } from '../ports/mail-exchangers.js';
import { dnsMailExchangers } from './mail-exchangers-dns.js';
import { localMailExchangers } from './mail-exchangers-local.js';

let dns: MailExchangers | undefined;

/** The mail-exchanger port of this environment: DNS in AWS, the deterministic stand-in on the twin. */
export function mailExchangers(): MailExchangers {
  if (isLocalMode()) return localMailExchangers;
  dns ??= dnsMailExchangers();
  return dns;
}
