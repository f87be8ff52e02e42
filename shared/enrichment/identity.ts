import * as z from '../core/zod.js';
import { normalizeCompanyName, normalizeDomain, normalizeName, normalizeProfessionalUrl } from '../directory/urls.js';
import { contactByProfessionalUrl, findByEmail, findByNameAndCompany, findByNameAndDomain, type ContactPoints } from '../directory/directory.repository.js';

/**
 * Identity shapes for enrichment (docs/decisions.md#search-and-enrichment): a profile URL, an email, or first + last
 * name with either a company name or a domain (never both).
 */
const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
export const identityFields = {
  professional_url: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(2048))),
  email: z.optional(z.email().check(z.maxLength(320))),
  first_name: z.optional(name),
  last_name: z.optional(name),
  company_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
  domain: z.optional(z.string().check(z.trim(), z.minLength(3), z.maxLength(253), z.refine((d) => d.includes('.'), 'domain must contain a dot'))),
};

export type IdentityInput = {
  professional_url?: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  company_name?: string;
  domain?: string;
};

export interface IdentityIssue {
  path: string;
  message: string;
}

/** Shared shape checks; returns issues rather than throwing so each endpoint adds its own rules. */
export function commonIdentityIssues(v: IdentityInput): IdentityIssue[] {
  const issues: IdentityIssue[] = [];
  if (v.company_name !== undefined && v.domain !== undefined) issues.push({ path: 'domain', message: 'company_name and domain are mutually exclusive' });
  if (v.professional_url !== undefined && normalizeProfessionalUrl(v.professional_url) === null) {
    issues.push({ path: 'professional_url', message: 'must be a professional-network profile URL of the /in/<slug> shape' });
  }
  // Names pair up only when they are the shape in use; beside a profile URL or an email they are hints.
  const namesAreTheShape = v.professional_url === undefined && v.email === undefined;
  if (namesAreTheShape && (v.first_name === undefined) !== (v.last_name === undefined)) {
    issues.push({ path: v.first_name === undefined ? 'first_name' : 'last_name', message: 'first_name and last_name go together' });
  }
  return issues;
}

export const hasNames = (v: IdentityInput) => v.first_name !== undefined && v.last_name !== undefined;
export const nameDomainShape = (v: IdentityInput) => hasNames(v) && v.domain !== undefined;
export const nameCompanyShape = (v: IdentityInput) => hasNames(v) && v.company_name !== undefined;

export const nameDomainKey = (v: IdentityInput) => `namedomain#${normalizeName(v.first_name!)}|${normalizeName(v.last_name!)}|${normalizeDomain(v.domain!)}`;
export const nameCompanyKey = (v: IdentityInput) => `namecompany#${normalizeName(v.first_name!)}|${normalizeName(v.last_name!)}|${normalizeCompanyName(v.company_name!)}`;

/** Look a person up by the given shapes, most specific first; every lookup is one DynamoDB request. */
export async function findContact(v: IdentityInput, shapes: ('url' | 'email' | 'namedomain' | 'namecompany')[]): Promise<ContactPoints | null> {
  for (const shape of shapes) {
    let found: ContactPoints | null = null;
    if (shape === 'url' && v.professional_url) found = await contactByProfessionalUrl(normalizeProfessionalUrl(v.professional_url)!);
    else if (shape === 'email' && v.email) found = await findByEmail(`email#${v.email.trim().toLowerCase()}`);
    else if (shape === 'namedomain' && nameDomainShape(v)) found = await findByNameAndDomain(nameDomainKey(v));
    else if (shape === 'namecompany' && nameCompanyShape(v)) found = await findByNameAndCompany(nameCompanyKey(v));
    if (found) return found;
  }
  return null;
}
