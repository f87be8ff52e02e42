/**
 * Normalization used for matching people across inputs: profile URLs, names, company names,
 * domains, and the lookup keys enrichment resolves against.
 */
import type { Company, Person } from './types.js';

const stripAccents = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');

/**
 * `https://www.LinkedIn.com/in/Jane-Doe-3f9a1c/?utm=x#top` -> `linkedin.com/in/jane-doe-3f9a1c`.
 * Accepts http(s) or no scheme, `www.` or a country subdomain (`uk.`), a trailing slash,
 * query and fragment. Anything that is not a `/in/<slug>` profile on linkedin.com is null.
 */
export function normalizeProfessionalUrl(input: string): string | null {
  let s = input.trim();
  if (!s) return null;
  s = s.replace(/^https?:\/\//i, '');
  if (/^[a-z][a-z0-9+.-]*:(?!\d)/i.test(s)) return null; // another scheme (ftp:, mailto:, javascript:), not a port
  s = s.replace(/[?#].*$/, '');
  const slash = s.indexOf('/');
  if (slash < 0) return null;
  const host = s.slice(0, slash).toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  if (!/^(?:[a-z]{2,3}\.|www\.)?linkedin\.com$/.test(host)) return null;
  const m = /^\/in\/([^/]+)\/?$/.exec(s.slice(slash));
  if (!m) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  slug = slug.toLowerCase();
  // LinkedIn slugs are letters, digits and hyphens (3-100 chars); accented letters appear in
  // some vanity URLs, so any Unicode letter is allowed.
  if (!/^[\p{L}\p{N}-]{3,100}$/u.test(slug)) return null;
  return `linkedin.com/in/${slug}`;
}

/** "  José  O'Brien-Smith " -> "jose obrien smith". */
export function normalizeName(s: string): string {
  return stripAccents(s)
    .toLowerCase()
    .replace(/ł/g, 'l')
    .replace(/ø/g, 'o')
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/\s+/g, ' ');
}

const COMPANY_SUFFIXES = new Set([
  'inc', 'incorporated', 'llc', 'llp', 'lp', 'ltd', 'limited', 'gmbh', 'ag', 'corp', 'corporation', 'co', 'company',
  'plc', 'sa', 'sas', 'sarl', 'srl', 'spa', 'bv', 'nv', 'pty', 'pte', 'oy', 'ab', 'as', 'aps', 'kg', 'se', 'ug', 'pllc',
]);

/** "Northwind Analytics, Inc." -> "northwind analytics"; "ACME GmbH & Co. KG" -> "acme". */
export function normalizeCompanyName(s: string): string {
  const words = normalizeName(s.replace(/&/g, ' and ').replace(/\b([a-z])\.(?=[a-z]\.?)/gi, '$1')).split(' ');
  // Strip legal forms from the end only ("Co" inside a name like "Co Op Bank" stays).
  while (words.length > 1 && (COMPANY_SUFFIXES.has(words.at(-1)!) || words.at(-1) === 'and')) words.pop();
  return words.join(' ');
}

/** "https://www.Example.co.uk/about" -> "example.co.uk"; "jane@example.com" -> "example.com". */
export function normalizeDomain(s: string): string {
  return s
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^[^@/]*@/, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/\.$/, '')
    .replace(/^www\./, '');
}

/** The keys an enrichment lookup can hit for this person (see SPEC enrichment shapes). */
export function lookupKeys(person: Person, company: Company): string[] {
  const first = normalizeName(person.first_name);
  const last = normalizeName(person.last_name);
  const keys: string[] = [];
  const url = normalizeProfessionalUrl(person.professional_url);
  if (url) keys.push(`url#${url}`);
  if (person.work_email) keys.push(`email#${person.work_email.trim().toLowerCase()}`);
  keys.push(`namedomain#${first}|${last}|${normalizeDomain(company.domain)}`);
  keys.push(`namecompany#${first}|${last}|${normalizeCompanyName(company.name)}`);
  return keys;
}
