/** Mappers from directory records to the docs/decisions.md result shapes. */
import type { Company, Person } from './types.js';
import { normalizeProfessionalUrl } from './urls.js';

export interface LeadCompany {
  name: string;
  domain: string;
  professional_url: string | null;
  industry: string;
  employee_count: number;
}

/** SPEC "Lead" (people search result item). */
export interface Lead {
  first_name: string;
  last_name: string;
  full_name: string;
  current_job_title: string;
  headline: string;
  location: string;
  professional_url: string;
  company: LeadCompany;
}

/** SPEC "Deep-search result item". */
export interface DeepSearchItem extends Lead {
  email: string;
  experience: { company: string; title: string; date_range: string }[];
  score: number;
}

/** SPEC "Professional profile". */
export interface ProfessionalProfile {
  first_name: string | null;
  last_name: string | null;
  full_name: string | null;
  headline: string | null;
  location: { city: string | null; country: string | null; country_code: string | null };
  current_position: { title: string | null; company_name: string | null; company_industry: string | null } | null;
  experience: { title: string | null; company_name: string | null; start: string | null; end: string | null }[];
  education: { school_name: string | null; degree: string | null; field_of_study: string | null; start: string | null; end: string | null }[];
}

/** "City, Region, Country", without repeating a city-state's name ("Singapore, Singapore"). */
export function locationText(l: Person['location']): string {
  const parts: string[] = [];
  for (const p of [l.city, l.region, l.country]) if (p && p !== parts.at(-1)) parts.push(p);
  return parts.join(', ');
}

/** Bare-host company page (`linkedin.com/company/<slug>`), or null when it is not one. */
function companyUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  const m = /^(?:https?:\/\/)?(?:[a-z]{2,3}\.|www\.)?linkedin\.com\/company\/([^/?#]+)\/?(?:[?#].*)?$/i.exec(url.trim());
  return m ? `linkedin.com/company/${m[1]!.toLowerCase()}` : null;
}

export function toLead(person: Person, company: Company): Lead {
  return {
    first_name: person.first_name,
    last_name: person.last_name,
    full_name: person.full_name,
    current_job_title: person.current_job_title,
    headline: person.headline,
    location: locationText(person.location),
    professional_url: normalizeProfessionalUrl(person.professional_url) ?? person.professional_url,
    company: {
      name: company.name,
      domain: company.domain,
      professional_url: companyUrl(company.professional_url),
      industry: company.industry,
      employee_count: company.employee_count,
    },
  };
}

/** `score` is clamped to an integer 0..100. `email` is "" when the directory has none. */
export function toDeepSearchItem(person: Person, company: Company, score: number): DeepSearchItem {
  return {
    ...toLead(person, company),
    email: person.work_email ?? '',
    experience: person.experience.map((x) => ({
      company: x.company_name,
      title: x.title,
      date_range: `${x.start} - ${x.end ?? 'present'}`,
    })),
    score: Math.max(0, Math.min(100, Math.round(score))),
  };
}

export function toProfessionalProfile(person: Person, company: Company): ProfessionalProfile {
  const current = person.experience.find((x) => x.end === null);
  return {
    first_name: person.first_name || null,
    last_name: person.last_name || null,
    full_name: person.full_name || null,
    headline: person.headline || null,
    location: {
      city: person.location.city || null,
      country: person.location.country || null,
      country_code: person.location.country_code || null,
    },
    current_position: current
      ? {
          title: current.title,
          company_name: current.company_name,
          // Industry is known only for directory companies; the current one is the person's company.
          company_industry: current.company_id === company.id ? company.industry : null,
        }
      : null,
    experience: person.experience.map((x) => ({ title: x.title, company_name: x.company_name, start: x.start, end: x.end })),
    education: person.education.map((e) => ({
      school_name: e.school_name,
      degree: e.degree,
      field_of_study: e.field_of_study,
      start: e.start,
      end: e.end,
    })),
  };
}
