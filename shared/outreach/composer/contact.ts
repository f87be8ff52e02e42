/** The contact as the composer addresses them: cleaned names, company, role and the caller's notes. */
import type { DraftInput } from '../drafter.js';
import { capFirst, clean } from './text.js';

export interface Person {
  first: string;
  last: string;
  company: string;
  role: string;
  context: string;
  hasProfile: boolean;
}

export function person(contact: DraftInput['contact']): Person {
  let first = clean(contact.first_name);
  if (first === first.toLowerCase()) first = capFirst(first);
  return {
    first,
    last: clean(contact.last_name),
    company: clean(contact.company_name),
    role: clean(contact.job_title),
    context: clean(contact.context),
    hasProfile: clean(contact.professional_url) !== '',
  };
}
