/**
 * The time zone of a recipient's country (docs/decisions.md#best-send-time), from `countries-and-timezones`.
 * Apart from send-time.ts because its data is 31 KB minified that only creating an email needs: approve,
 * cancel, the sequences and the timers reach send-time.ts and not this (`npm run bench`).
 */
import { getCountry } from 'countries-and-timezones';

/**
 * The principal zone for countries spanning several; the library lists zones alphabetically, so
 * `timezones[0]` would put the United States on America/Adak and Australia on Antarctica/Macquarie.
 */
const PRINCIPAL_ZONE: Readonly<Record<string, string>> = {
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CL: 'America/Santiago',
  CY: 'Asia/Nicosia',
  DE: 'Europe/Berlin',
  ES: 'Europe/Madrid',
  GL: 'America/Nuuk',
  KI: 'Pacific/Tarawa',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  MY: 'Asia/Singapore',
  PF: 'Pacific/Tahiti',
  PG: 'Pacific/Port_Moresby',
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  UA: 'Europe/Kyiv',
  US: 'America/New_York',
  UZ: 'Asia/Tashkent',
  VN: 'Asia/Ho_Chi_Minh',
};

/** IANA zone for an ISO 3166-1 alpha-2 country code, or null when unknown. */
export function timeZoneForLocation(countryCode?: string | null): string | null {
  const code = countryCode?.trim().toUpperCase();
  if (!code || !/^[A-Z]{2}$/.test(code)) return null;
  const zones = getCountry(code)?.timezones ?? [];
  if (zones.length === 0) return null;
  const principal = PRINCIPAL_ZONE[code];
  return principal && zones.includes(principal as (typeof zones)[number]) ? principal : zones[0]!;
}
