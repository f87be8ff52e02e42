/**
 * The people-directory JSONL format: one record per line, discriminated by `type`.
 * Companies come first in a file so that readers can resolve `company_id` on the fly.
 */
import * as z from '../core/zod.js';

const YearMonth = z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM'));

export const PlaceSchema = z.object({
  city: z.string().check(z.minLength(1)),
  region: z.string().check(z.minLength(1)),
  country: z.string().check(z.minLength(1)),
  country_code: z.string().check(z.regex(/^[A-Z]{2}$/)),
  time_zone: z.string().check(z.minLength(1)),
});

export const CompanySchema = z.object({
  type: z.literal('company'),
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  domain: z.string().check(z.regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/)),
  professional_url: z.string().check(z.regex(/^linkedin\.com\/company\/[a-z0-9-]+$/)),
  industry: z.string().check(z.minLength(1)),
  employee_count: z.number().check(z.int(), z.gte(1)),
  hq: PlaceSchema,
  /** The data provider's mark that the domain's mail server accepts every recipient (a catch-all). */
  accept_all: z.optional(z.boolean()),
});

export const ExperienceSchema = z.object({
  company_name: z.string().check(z.minLength(1)),
  company_id: z.nullable(z.string()),
  title: z.string().check(z.minLength(1)),
  start: YearMonth,
  end: z.nullable(YearMonth),
});

export const EducationSchema = z.object({
  school_name: z.string().check(z.minLength(1)),
  degree: z.string().check(z.minLength(1)),
  field_of_study: z.string().check(z.minLength(1)),
  start: YearMonth,
  end: YearMonth,
});

export const PersonSchema = z.object({
  type: z.literal('person'),
  id: z.string().check(z.minLength(1)),
  company_id: z.string().check(z.minLength(1)),
  first_name: z.string().check(z.minLength(1)),
  last_name: z.string().check(z.minLength(1)),
  full_name: z.string().check(z.minLength(1)),
  headline: z.string().check(z.minLength(1)),
  current_job_title: z.string().check(z.minLength(1)),
  function: z.string().check(z.minLength(1)),
  seniority: z.string().check(z.minLength(1)),
  location: PlaceSchema,
  professional_url: z.string().check(z.regex(/^linkedin\.com\/in\/[a-z0-9-]+$/)),
  work_email: z.nullable(z.email()),
  phone: z.nullable(z.string().check(z.regex(/^\+[1-9]\d{6,14}$/, 'expected E.164'))),
  experience: z
    .array(ExperienceSchema)
    // Only the current role is open-ended; a record with two open roles is malformed.
    .check(z.refine((xs) => xs.filter((x) => x.end === null).length <= 1, 'at most one current role')),
  education: z.array(EducationSchema),
  skills: z.array(z.string().check(z.minLength(1))),
});

export const DirectoryRecordSchema = z.discriminatedUnion('type', [CompanySchema, PersonSchema]);

export type Place = z.infer<typeof PlaceSchema>;
export type Company = z.infer<typeof CompanySchema>;
export type Person = z.infer<typeof PersonSchema>;
export type Experience = z.infer<typeof ExperienceSchema>;
export type Education = z.infer<typeof EducationSchema>;
export type DirectoryRecord = z.infer<typeof DirectoryRecordSchema>;
