import * as z from '../core/zod.js';
import { reserve, release, settleCharged } from '../accounts/ledger.repository.js';
import { PRICES } from '../accounts/prices.js';
import { NotFoundError, UpstreamError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { countMetric } from '../core/metrics.js';
import { normalizeProfessionalUrl } from '../directory/urls.js';
import { toProfessionalProfile } from '../directory/shape.js';
import { findByProfessionalUrl, type ContactPoints } from '../directory/directory.repository.js';
import { isOptedOut } from '../privacy/opt-outs.repository.js';
import { foundEmail } from '../email-status/email-status.js';
import type { EmailStatusFields } from '../email-status/classify.js';
import { commonIdentityIssues, findContact, hasNames, identityFields, nameCompanyShape, nameDomainShape, type IdentityInput } from './identity.js';

/**
 * Synchronous enrichment (docs/decisions.md): found → 200 at full price; no match → 404 at full price; invalid input
 * → 400 free (zod, before any reservation); upstream failure → 502 free (the reservation is released).
 */

function addIssues(v: IdentityInput, ctx: z.core.$RefinementCtx, extra: { path: string; message: string }[] = []) {
  for (const i of [...commonIdentityIssues(v), ...extra]) ctx.addIssue({ code: 'custom', path: [i.path], message: i.message });
}

// Each endpoint accepts every identity field but the one its shapes do not use (strict: unknown → 400).
// Built on first use (z.lazy), not at module load: a function's cold start pays only for the schema it parses.
const withoutEmail = () => {
  const { email: _email, ...fields } = identityFields;
  return fields;
};
const withoutUrl = () => {
  const { professional_url: _url, ...fields } = identityFields;
  return fields;
};

export const EmailEnrichSchema = z.lazy(() =>
  z.strictObject(withoutEmail()).check(
    z.superRefine((v, ctx) => {
    const extra = [];
    if (v.professional_url === undefined && !(nameDomainShape(v) || nameCompanyShape(v))) {
        extra.push({ path: hasNames(v) ? 'domain' : 'professional_url', message: 'provide professional_url, or first_name + last_name with company_name or domain' });
      }
      addIssues(v, ctx, extra);
    }),
  ),
);

export const ProfessionalUrlEnrichSchema = z.lazy(() =>
  z.strictObject(withoutUrl()).check(
    z.superRefine((v, ctx) => {
      const extra = [];
      const namesUsed = v.first_name !== undefined || v.last_name !== undefined || v.company_name !== undefined || v.domain !== undefined;
      if (v.email !== undefined && namesUsed) extra.push({ path: 'email', message: 'use exactly one shape: email, or names with company_name or domain' });
      else if (v.email === undefined && !(nameDomainShape(v) || nameCompanyShape(v))) {
        extra.push({ path: hasNames(v) ? 'domain' : 'email', message: 'provide email, or first_name + last_name with company_name or domain' });
      }
      addIssues(v, ctx, extra);
    }),
  ),
);

export const ProfileEnrichSchema = z.lazy(() =>
  z.strictObject({
    professional_url: z
      .string()
      .check(
        z.trim(),
        z.minLength(1),
        z.maxLength(2048),
        z.refine((u) => normalizeProfessionalUrl(u) !== null, 'must be a professional-network profile URL of the /in/<slug> shape'),
      ),
  }),
);

/** The phone lookup's identity shapes: a profile URL, an email, or names with a company name or a domain. */
function phoneShapeIssues(v: IdentityInput, ctx: z.core.$RefinementCtx) {
  const extra = [];
  if (v.professional_url === undefined && v.email === undefined && !(nameDomainShape(v) || nameCompanyShape(v))) {
    extra.push({ path: hasNames(v) ? 'domain' : 'professional_url', message: 'provide professional_url, email, or first_name + last_name with company_name or domain' });
  }
  addIssues(v, ctx, extra);
}

export const PhoneEnrichSchema = z.lazy(() =>
  z
    .strictObject({
      ...identityFields,
      webhook_url: z.string().check(z.maxLength(2048)),
    })
    .check(z.superRefine(phoneShapeIssues)),
);

/** A phone lookup's identity alone, as an item of a bulk enrichment (its job's `webhook_url` is the bulk call's). */
export const PhoneIdentitySchema = z.lazy(() => z.strictObject(identityFields).check(z.superRefine(phoneShapeIssues)));

/** Reserve the price, look up, keep the price whether or not there is a match; release on upstream failure. */
async function charged<T>(accountId: string, operation: 'email' | 'professional_url' | 'professional_profile', reference: string, lookup: () => Promise<T | null>): Promise<T> {
  const amount = PRICES[`${operation}_enrich`];
  const r = await reserve({ accountId, operation: `${operation}_enrich`, reference, amount });
  let found: T | null;
  try {
    found = await lookup();
  } catch (e) {
    logger.error('enrichment lookup failed', { operation, error: e as Error });
    await release(accountId, r);
    countMetric('enrichments', 1, { kind: operation, outcome: 'error' });
    throw new UpstreamError();
  }
  await settleCharged(accountId, r, amount);
  countMetric('enrichments', 1, { kind: operation, outcome: found === null ? 'not_found' : 'found' });
  if (found === null) throw new NotFoundError('No match.');
  return found;
}

/**
 * A person who opted out (docs/privacy.md) is not found: every lookup below answers a match of theirs as a miss,
 * charged as a miss (the single calls: full price; phone: nothing). One privacy-table read (their profile URL and
 * work email) per match; a directory miss reads nothing more.
 */
const hitPerson = (hit: ContactPoints) => ({ email: hit.work_email, professional_url: hit.professional_url });

/**
 * The lookups alone, uncharged: each single call wraps its own in `charged`, bulk enrichment settles them per item.
 *
 * The email finder's answer for one identity, or null for no match: the address with its email status
 * (shared/email-status). Bulk enrichment's email items are answered by this same function (uncharged: each caller charges).
 */
export async function lookupEmail(v: z.output<typeof EmailEnrichSchema>): Promise<({ email: string } & EmailStatusFields) | null> {
  // A name + company name alone cannot resolve an email (docs/decisions.md): charged, and a 404.
  const hit = await findContact(v, ['url', 'namedomain']);
  if (!hit?.work_email) return null;
  // The owner's names and company (catch-all mark) for the status: one more read, by the key the hit carries,
  // beside the opt-out read.
  const [entry, optedOut] = await Promise.all([findByProfessionalUrl(normalizeProfessionalUrl(hit.professional_url) ?? hit.professional_url), isOptedOut(hitPerson(hit))]);
  if (optedOut) return null;
  return foundEmail(hit.work_email, {
    first_name: entry?.person.first_name ?? v.first_name,
    last_name: entry?.person.last_name ?? v.last_name,
    accept_all: entry?.company.accept_all,
  });
}

export async function lookupProfessionalUrl(v: z.output<typeof ProfessionalUrlEnrichSchema>): Promise<{ professional_url: string } | null> {
  const hit = await findContact(v, ['email', 'namedomain', 'namecompany']);
  return hit && !(await isOptedOut(hitPerson(hit))) ? { professional_url: hit.professional_url } : null;
}

export async function lookupProfile(v: z.output<typeof ProfileEnrichSchema>) {
  const hit = await findByProfessionalUrl(normalizeProfessionalUrl(v.professional_url)!);
  return hit && !(await isOptedOut({ email: hit.person.work_email, professional_url: hit.person.professional_url })) ? toProfessionalProfile(hit.person, hit.company) : null;
}

/** The phone on file for an identity, or null (a miss). */
export async function lookupPhone(v: IdentityInput): Promise<{ phone: string } | null> {
  const hit = await findContact(v, ['url', 'email', 'namedomain', 'namecompany']);
  return hit?.phone && !(await isOptedOut(hitPerson(hit))) ? { phone: hit.phone } : null;
}

export function enrichEmail(accountId: string, reference: string, v: z.output<typeof EmailEnrichSchema>): Promise<{ email: string } & EmailStatusFields> {
  return charged(accountId, 'email', reference, () => lookupEmail(v));
}

export function enrichProfessionalUrl(accountId: string, reference: string, v: z.output<typeof ProfessionalUrlEnrichSchema>): Promise<{ professional_url: string }> {
  return charged(accountId, 'professional_url', reference, () => lookupProfessionalUrl(v));
}

export function enrichProfile(accountId: string, reference: string, v: z.output<typeof ProfileEnrichSchema>) {
  return charged(accountId, 'professional_profile', reference, () => lookupProfile(v));
}
