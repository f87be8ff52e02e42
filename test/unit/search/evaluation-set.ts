/**
 * The labelled evaluation set for people search: each query carries the constraints it must
 * parse to and a truth predicate written against the raw directory record (title text, record
 * fields, skills), never against the parser's output, so precision and recall measure the
 * whole pipeline. Queries are composed from labelled parts (a role, a place, an industry...)
 * whose texts, constraints and predicates combine. Named-company queries take their companies
 * from the directory at hand, so the set is a function of the records.
 */
import type { Company, DirectoryRecord, Person } from '../../../shared/directory/types.js';
import { normalizeCompanyName } from '../../../shared/directory/urls.js';
import type { ParsedQuery, Place } from '../../../shared/search-engine/query.js';
import { expected, place, type Partial2 } from './expected.js';
import { rolesAskedFor, titleNames } from './title-oracle.js';

export type Truth = (p: Person, c: Company) => boolean;
type Constraints = Omit<ParsedQuery, 'terms'>;

export const CATEGORIES = [
  'role', 'title', 'seniority', 'city', 'region', 'country', 'qualified place', 'ambiguous place', 'industry', 'company size',
  'named company', 'exclusion', 'keyword', 'absent',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface EvaluationQuery {
  category: Category;
  query: string;
  expect: Constraints;
  truth: Truth;
}

interface Part {
  text: string;
  expect: Partial2<Constraints>;
  truth: Truth;
}

const everyone: Truth = () => true;
const nobody: Truth = () => false;
const part = (text: string, expect: Partial2<Constraints>, truth: Truth): Part => ({ text, expect, truth });

// ---- record-level predicates ------------------------------------------------------------------
const title = (re: RegExp): Truth => (p) => re.test(p.current_job_title);
const fn = (...f: string[]): Truth => (p) => f.includes(p.function);
const seniority = (...s: string[]): Truth => (p) => s.includes(p.seniority);
const inCity = (city: string, region: string, country: string): Truth => (p) => p.location.city === city && p.location.region === region && p.location.country_code === country;
const inRegion = (region: string, country: string): Truth => (p) => p.location.region === region && p.location.country_code === country;
const inCountry = (...cc: string[]): Truth => (p) => cc.includes(p.location.country_code);
const industry = (...i: string[]): Truth => (_p, c) => i.includes(c.industry);
const size = (min: number, max: number): Truth => (_p, c) => c.employee_count >= min && c.employee_count <= max;
const not = (t: Truth): Truth => (p, c) => !t(p, c);
const both = (...ts: Truth[]): Truth => (p, c) => ts.every((t) => t(p, c));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The word (or its plural) in the title, headline or a skill. */
const mentions = (word: string): Truth => {
  const re = new RegExp(`(^|[^\\p{L}\\p{N}])${escape(word)}(s|es)?($|[^\\p{L}\\p{N}+#])`, 'iu');
  return (p) => re.test(p.current_job_title) || re.test(p.headline) || p.skills.some((s) => re.test(s));
};

// ---- roles ----------------------------------------------------------------------------------------
/** A role asked for: the titles the documented table expands it to, and the title oracle as truth. */
const asked = (text: string, canonical: string): Part => part(text, { titles: rolesAskedFor(canonical) }, (p) => titleNames(canonical)(p.current_job_title));
const SWE = /\b(Software Engineer|Frontend Engineer|Backend Engineer|Full Stack Developer|Mobile Developer|Principal Engineer)\b/;
const ATTORNEY = /Attorney|Legal Counsel|Corporate Counsel/;
const TEACHER = /Teacher$/;
const NURSE = /\bNurse\b/;
const ROLE = {
  nurses: part('nurses', { titles: ['Nurse'] }, title(NURSE)),
  rns: part('RNs', { titles: ['Registered Nurse'] }, title(/Registered Nurse|Staff Nurse/)),
  physicians: part('physicians', { titles: ['Physician'] }, title(/Physician|Surgeon/)),
  doctors: part('doctors', { titles: ['Physician'] }, title(/Physician|Surgeon/)),
  pharmacists: part('pharmacists', { titles: ['Pharmacist'] }, title(/Pharmacist/)),
  teachers: part('teachers', { titles: ['Teacher'] }, title(TEACHER)),
  professors: part('professors', { titles: ['Professor'] }, title(/Professor/)),
  principals: part('school principals', { titles: ['School Principal'] }, title(/^School Principal$/)),
  attorneys: part('attorneys', { titles: ['Attorney'] }, title(ATTORNEY)),
  lawyers: part('lawyers', { titles: ['Attorney'] }, title(ATTORNEY)),
  paralegals: part('paralegals', { titles: ['Paralegal'] }, title(/^Paralegal$/)),
  plantManagers: part('plant managers', { titles: ['Plant Manager'] }, title(/^Plant Manager$/)),
  qualityEngineers: part('quality engineers', { titles: ['Quality Engineer'] }, title(/Quality Engineer/)),
  electricians: part('electricians', { titles: ['Electrician'] }, title(/Electrician/)),
  welders: part('welders', { titles: ['Welder'] }, title(/^Welder$/)),
  socialWorkers: part('social workers', { titles: ['Social Worker'] }, title(/^Social Worker$/)),
  policyAnalysts: part('policy analysts', { titles: ['Policy Analyst'] }, title(/Policy Analyst/)),
  cfos: part('CFOs', { titles: ['Chief Financial Officer'] }, title(/^Chief Financial Officer$/)),
  ceos: part('CEOs', { titles: ['Chief Executive Officer'] }, title(/Chief Executive Officer|CEO/)),
  ctos: part('CTOs', { titles: ['Chief Technology Officer'] }, title(/Chief Technology Officer|CTO/)),
  vpSales: part('VP of Sales', { titles: ['VP of Sales'] }, title(/^VP of Sales$/)),
  vpsSales: part('vice presidents of sales', { titles: ['VP of Sales'] }, title(/^VP of Sales$/)),
  sdrs: part('SDRs', { titles: ['Sales Development Representative'] }, title(/^Sales Development Representative$/)),
  aes: part('AEs', { titles: ['Account Executive'] }, title(/Account Executive/)),
  accountExecutives: part('account executives', { titles: ['Account Executive'] }, title(/Account Executive/)),
  swes: part('software engineers', { titles: ['Software Engineer'] }, title(SWE)),
  devs: part('devs', { titles: ['Software Engineer'] }, title(SWE)),
  developers: part('developers', { titles: ['Software Engineer'] }, title(SWE)),
  dataScientists: part('data scientists', { titles: ['Data Scientist'] }, title(/Data Scientist/)),
  productManagers: part('product managers', { titles: ['Product Manager'] }, title(/Product Manager/)),
  recruiters: part('recruiters', { titles: ['Recruiter'] }, title(/Recruiter|Talent Acquisition Specialist/)),
  designers: part('designers', { titles: ['Designer'] }, title(/Designer/)),
  headsOfMarketing: asked('heads of marketing', 'Head of Marketing'),
  marketingDirectors: asked('marketing directors', 'Director of Marketing'),
  accountants: part('accountants', { titles: ['Accountant'] }, title(/Accountant/)),
  engineeringManagers: asked('engineering managers', 'Engineering Manager'),
  engineers: part('engineers', { functions: ['engineering'] }, fn('engineering')),
  marketers: part('marketers', { functions: ['marketing'] }, fn('marketing')),
  salesPeople: part('sales people', { functions: ['sales'] }, fn('sales')),
  hrPeople: part('HR people', { functions: ['hr'] }, fn('hr')),
  financePeople: part('finance people', { functions: ['finance'] }, fn('finance')),
  clinicalStaff: part('clinical staff', { functions: ['clinical'] }, fn('clinical')),
  tradespeople: part('tradespeople', { functions: ['trades'] }, fn('trades')),
} satisfies Record<string, Part>;

/**
 * Roles the title category asks for: every line and level of the documented equivalence table under the
 * names people type, and individual roles that share words with them (an account executive is not an
 * executive, a sales engineer not a sales leader, a product or account manager not a manager of a function).
 */
const TITLE_ROLES_ASKED: [string, string][] = [
  ['HR managers', 'HR Manager'], ['human resources managers', 'HR Manager'], ['people operations managers', 'People Operations Manager'],
  ['people ops managers', 'People Operations Manager'], ['HR business partners', 'HR Business Partner'], ['HRBPs', 'HR Business Partner'],
  ['HR directors', 'HR Director'], ['directors of human resources', 'HR Director'], ['directors of people', 'Director of People'],
  ['heads of people', 'Head of People'], ['heads of HR', 'Head of People'], ['VPs of HR', 'VP of Human Resources'], ['VPs of people', 'VP of People'],
  ['sales managers', 'Sales Manager'], ['sales directors', 'Director of Sales'], ['directors of sales', 'Director of Sales'],
  ['heads of sales', 'Head of Sales'], ['VP sales', 'VP of Sales'],
  ['marketing managers', 'Marketing Manager'], ['marketing directors', 'Director of Marketing'], ['directors of marketing', 'Director of Marketing'],
  ['heads of marketing', 'Head of Marketing'], ['VPs of marketing', 'VP of Marketing'],
  ['finance managers', 'Finance Manager'], ['finance directors', 'Director of Finance'], ['directors of finance', 'Director of Finance'],
  ['heads of finance', 'Head of Finance'], ['VPs of finance', 'VP of Finance'],
  ['engineering managers', 'Engineering Manager'], ['engineering directors', 'Director of Engineering'], ['heads of engineering', 'Head of Engineering'],
  ['VPs of engineering', 'VP of Engineering'],
  ['directors of product', 'Director of Product'], ['heads of product', 'Head of Product'], ['VPs of product', 'VP of Product'],
  ['design managers', 'Design Manager'], ['design directors', 'Director of Design'], ['heads of design', 'Head of Design'],
  ['operations managers', 'Operations Manager'], ['directors of operations', 'Director of Operations'], ['heads of operations', 'Head of Operations'],
  ['VPs of operations', 'VP of Operations'],
  ['heads of customer success', 'Head of Customer Success'], ['VPs of customer success', 'VP of Customer Success'],
  ['analytics managers', 'Analytics Manager'], ['heads of data', 'Head of Data'], ['directors of analytics', 'Director of Analytics'],
  ['heads of legal', 'Head of Legal'], ['IT managers', 'IT Manager'], ['IT directors', 'Director of IT'],
  ['CTOs', 'Chief Technology Officer'], ['chief technology officers', 'Chief Technology Officer'], ['CEOs', 'Chief Executive Officer'],
  ['CMOs', 'Chief Marketing Officer'], ['CROs', 'Chief Revenue Officer'], ['CFOs', 'Chief Financial Officer'],
  // traps
  ['sales engineers', 'Sales Engineer'], ['solutions engineers', 'Sales Engineer'], ['account executives', 'Account Executive'],
  ['account managers', 'Account Manager'], ['key account managers', 'Account Manager'], ['customer success managers', 'Customer Success Manager'],
  ['product managers', 'Product Manager'], ['product marketing managers', 'Product Marketing Manager'], ['recruiting managers', 'Recruiting Manager'],
  ['technical account managers', 'Technical Account Manager'],
];

/**
 * The directory with realistic titles in place of a share of the generated ones (the generator's own are
 * canonical): seniority and scope qualifiers, inverted and "&" titles, and titles that are another role around
 * a role's words (assistants, deputies, associates, interns, sub-functions). The title category holds to the
 * oracle on it too, so the qualifier rule is measured whatever titles the generator draws.
 */
export function retitle(records: DirectoryRecord[]): DirectoryRecord[] {
  const PAIR: Record<string, string> = { Sales: 'Marketing', Marketing: 'Sales', Finance: 'Operations', Operations: 'Finance', People: 'Culture', Engineering: 'Product', Product: 'Design' };
  let n = 0;
  return records.map((r) => {
    if (r.type !== 'person' || r.seniority === 'intern' || r.seniority === 'founder') return r;
    const t = r.current_job_title;
    const of = /^(Director|Head|VP) of (\w+)$/.exec(t);
    let next = t;
    switch (n++ % 12) {
      case 0: next = t.startsWith('Senior ') ? `Lead ${t}` : `Senior ${t}`; break;
      case 1: next = `${t}, EMEA`; break;
      case 2: next = `${t} (APAC)`; break;
      case 3: next = of ? `${of[1]}, ${of[2]}` : t === 'HR Manager' ? 'Manager, Human Resources' : `Global ${t}`; break;
      case 4: next = of && PAIR[of[2]!] ? `${t} & ${PAIR[of[2]!]}` : `Interim ${t}`; break;
      case 5: next = r.seniority === 'c_level' ? `Executive Assistant to the ${t}` : /Manager$/.test(t) ? `Assistant ${t}` : `${t} Intern`; break;
      case 6: next = of ? `${of[1] === 'Head' ? 'Deputy' : 'Associate'} ${t}` : r.function === 'hr' ? 'HR Assistant' : t; break;
      case 7: next = of ? `${t} Operations` : t; break;
      case 8: next = of ? `${of[1] === 'VP' ? 'Senior Vice President' : of[1]}, ${of[2]}` : t; break;
      default: break;
    }
    return next === t ? r : { ...r, current_job_title: next };
  });
}

// ---- places ---------------------------------------------------------------------------------------
const city = (text: string, c: string, region: string, country: string) => part(text, { locations: [place(c, region, country)] }, inCity(c, region, country));
const region = (text: string, r: string, country: string) => part(text, { locations: [place(null, r, country)] }, inRegion(r, country));
const country = (text: string, ...cc: string[]) => part(text, { locations: cc.map((c) => place(null, null, c)) }, inCountry(...cc));
const places = (text: string, ps: Place[]) =>
  part(text, { locations: ps }, (p) => ps.some((x) => x.country === p.location.country_code && (!x.region || x.region === p.location.region) && (!x.city || x.city === p.location.city)));

const CITY = [
  city('in Berlin', 'Berlin', 'Berlin', 'DE'),
  city('in Paris', 'Paris', 'Île-de-France', 'FR'),
  city('in NYC', 'New York', 'New York', 'US'),
  city('in San Francisco', 'San Francisco', 'California', 'US'),
  city('in Chicago', 'Chicago', 'Illinois', 'US'),
  city('in Mumbai', 'Mumbai', 'Maharashtra', 'IN'),
  city('in Sydney', 'Sydney', 'New South Wales', 'AU'),
  city('based in Toronto', 'Toronto', 'Ontario', 'CA'),
  city('in Bangalore', 'Bengaluru', 'Karnataka', 'IN'),
  city('in Madrid', 'Madrid', 'Community of Madrid', 'ES'),
  city('in Amsterdam', 'Amsterdam', 'North Holland', 'NL'),
  city('in Munich', 'Munich', 'Bavaria', 'DE'),
  city('in Dublin', 'Dublin', 'Leinster', 'IE'),
  city('in Houston', 'Houston', 'Texas', 'US'),
];
const REGION = [
  region('in Texas', 'Texas', 'US'),
  region('in California', 'California', 'US'),
  region('in Ontario', 'Ontario', 'CA'),
  region('in Bavaria', 'Bavaria', 'DE'),
  region('in New South Wales', 'New South Wales', 'AU'),
  region('in Maharashtra', 'Maharashtra', 'IN'),
  region('in Catalonia', 'Catalonia', 'ES'),
  region('in Florida', 'Florida', 'US'),
  region('in Queensland', 'Queensland', 'AU'),
  region('in Ile-de-France', 'Île-de-France', 'FR'),
  region('in Washington state', 'Washington', 'US'),
  region('in England', 'England', 'GB'),
];
const COUNTRY = [
  country('in Germany', 'DE'),
  country('in the UK', 'GB'),
  country('in Canada', 'CA'),
  country('in India', 'IN'),
  country('in Australia', 'AU'),
  country('in Brazil', 'BR'),
  country('in Ireland', 'IE'),
  country('in the Netherlands', 'NL'),
  country('in Spain', 'ES'),
  country('in the United States', 'US'),
  country('in Mexico', 'MX'),
  country('in the DACH region', 'DE', 'AT', 'CH'),
];
const QUALIFIED = [
  city('in London, Ontario', 'London', 'Ontario', 'CA'),
  city('in London, UK', 'London', 'England', 'GB'),
  city('in London, England', 'London', 'England', 'GB'),
  city('in Portland, Maine', 'Portland', 'Maine', 'US'),
  city('in Portland, Oregon', 'Portland', 'Oregon', 'US'),
  city('in Berlin, Germany', 'Berlin', 'Berlin', 'DE'),
  city('in Paris, France', 'Paris', 'Île-de-France', 'FR'),
  city('in Paris, Texas', 'Paris', 'Texas', 'US'),
  city('in Birmingham, Alabama', 'Birmingham', 'Alabama', 'US'),
  city('in Valencia, Spain', 'Valencia', 'Valencian Community', 'ES'),
  city('in Richmond, British Columbia', 'Richmond', 'British Columbia', 'CA'),
  city('in Hamilton, New Zealand', 'Hamilton', 'Waikato', 'NZ'),
  city('in Springfield, Massachusetts', 'Springfield', 'Massachusetts', 'US'),
  region('in Ontario, Canada', 'Ontario', 'CA'),
];
const AMBIGUOUS = [
  city('in London', 'London', 'England', 'GB'),
  city('in Birmingham', 'Birmingham', 'England', 'GB'),
  city('in Portland', 'Portland', 'Oregon', 'US'),
  city('in Perth', 'Perth', 'Western Australia', 'AU'),
  city('in Richmond', 'Richmond', 'Virginia', 'US'),
  city('in Springfield', 'Springfield', 'Missouri', 'US'),
  city('in Hamilton', 'Hamilton', 'Ontario', 'CA'),
  city('in Newcastle', 'Newcastle', 'KwaZulu-Natal', 'ZA'),
  city('in San Jose', 'San Jose', 'California', 'US'),
  region('in Georgia', 'Georgia', 'US'),
  places('in the Bay Area', [place('San Francisco', 'California', 'US'), place('San Jose', 'California', 'US'), place('Oakland', 'California', 'US')]),
];

// ---- firmographics ----------------------------------------------------------------------------
const ind = (text: string, name: string) => part(text, { industries: [name] }, industry(name));
const INDUSTRY = {
  healthcare: ind('at healthcare companies', 'Hospital & Health Care'),
  hospitals: ind('at hospitals', 'Hospital & Health Care'),
  schools: ind('at schools', 'Education Management'),
  universities: ind('at universities', 'Higher Education'),
  lawFirms: ind('at law firms', 'Law Practice'),
  manufacturers: ind('at manufacturers', 'Industrial Automation'),
  fintech: ind('at fintech companies', 'Financial Services'),
  saas: ind('at SaaS companies', 'Computer Software'),
  banks: ind('at banks', 'Banking'),
  accountingFirms: ind('at accounting firms', 'Accounting'),
  staffing: ind('at staffing agencies', 'Staffing & Recruiting'),
  biotech: ind('in biotech', 'Biotechnology'),
  games: ind('at game studios', 'Computer Games'),
  ecommerce: ind('in ecommerce', 'Retail'),
  construction: ind('at construction companies', 'Construction'),
  government: ind('in government', 'Government Administration'),
  automotive: ind('in automotive', 'Automotive'),
};
const sized = (text: string, s: { min?: number; max?: number }) => part(text, { companySize: s }, size(s.min ?? 0, s.max ?? Infinity));
const SIZE = {
  startups: sized('at startups', { max: 200 }),
  over1000: sized('at companies with over 1000 employees', { min: 1001 }),
  from50to200: sized('at companies with 50-200 employees', { min: 50, max: 200 }),
  under50: sized('at companies with fewer than 50 employees', { max: 49 }),
  enterprise: sized('at enterprise companies', { min: 1000 }),
  midSize: sized('at mid-size companies', { min: 201, max: 999 }),
  from200to1000: sized('at companies with 200 to 1000 employees', { min: 200, max: 1000 }),
  small: sized('at small companies', { max: 200 }),
  atLeast10k: sized('at companies with at least 10k employees', { min: 10000 }),
  under500: sized('at companies with under 500 employees', { max: 499 }),
  large: sized('at large companies', { min: 1000 }),
};

const sen = (text: string, s: string[]) => part(text, { seniorities: s }, seniority(...s));
const SENIORITY = {
  senior: sen('senior', ['senior']),
  junior: sen('junior', ['entry']),
  interns: sen('interns', ['intern']),
  founders: sen('founders', ['founder']),
  directorLevel: sen('director-level', ['director']),
  vps: sen('VPs', ['vp']),
  executives: sen('executives', ['c_level', 'vp']),
  managers: sen('managers', ['manager']),
  leaders: sen('leaders', ['director', 'vp', 'c_level']),
};

const kw = (word: string, text = word) => part(text, { keywords: [word] }, mentions(word));
const exclude = (text: string, expect: Partial2<Constraints>, truth: Truth) => part(text, { exclusions: expect.exclusions }, not(truth));

/** Merges parts: texts joined, constraints concatenated, predicates all required. */
function compose(category: Category, ...parts: Part[]): EvaluationQuery {
  const e = expected({});
  for (const { expect: x } of parts) {
    e.titles.push(...(x.titles ?? []));
    e.functions.push(...(x.functions ?? []));
    e.seniorities.push(...(x.seniorities ?? []));
    e.locations.push(...(x.locations ?? []));
    e.industries.push(...(x.industries ?? []));
    e.companies.push(...(x.companies ?? []));
    e.keywords.push(...(x.keywords ?? []));
    if (x.companySize) e.companySize = { ...(e.companySize ?? {}), ...x.companySize };
    for (const k of Object.keys(e.exclusions) as (keyof Constraints['exclusions'])[]) e.exclusions[k].push(...(x.exclusions?.[k] ?? []));
  }
  return { category, query: parts.map((p) => p.text).join(' '), expect: e, truth: both(...parts.map((p) => p.truth)) };
}

/** The evaluation set over a directory: the fixed queries plus named-company queries drawn from it. */
export function evaluationSet(records: DirectoryRecord[]): EvaluationQuery[] {
  const R = ROLE;
  const set: EvaluationQuery[] = [];
  const add = (category: Category, ...parts: Part[]) => set.push(compose(category, ...parts));

  // roles, alone and as abbreviations and plurals
  for (const r of Object.values(R)) add('role', r);

  // titles: the equivalence table's lines and levels, individual roles that share their words (traps), the
  // issue's queries; each alone where that text is new, and with a country
  const countries = [COUNTRY[9]!, COUNTRY[1]!, COUNTRY[0]!, COUNTRY[3]!, COUNTRY[2]!, COUNTRY[4]!];
  TITLE_ROLES_ASKED.forEach(([text, canonical], k) => {
    const r = asked(text, canonical);
    if (!set.some((e) => e.query === text)) add('title', r);
    add('title', r, countries[k % countries.length]!);
  });
  add('title', asked('HR managers', 'HR Manager'), city('in Sydney', 'Sydney', 'New South Wales', 'AU'));
  add('title', asked('UX designers', 'UX Designer'), CITY[10]!);
  add('title', asked('finance directors', 'Director of Finance'), CITY[7]!);
  add('title', asked('data scientists', 'Data Scientist'), INDUSTRY.fintech, SIZE.startups);
  add('title', asked('VP of Sales', 'VP of Sales'), part('at software companies', { industries: ['Computer Software'] }, industry('Computer Software')), COUNTRY[0]!);
  add('title', asked('marketing directors', 'Director of Marketing'), part('at retail companies', { industries: ['Retail'] }, industry('Retail')), country('in France', 'FR'));
  add('title', asked('CTOs', 'Chief Technology Officer'), part('of fintech startups', { industries: ['Financial Services'], companySize: { max: 200 } }, both(industry('Financial Services'), size(0, 200))), AMBIGUOUS[0]!);
  add('title', part('sales', { functions: ['sales'] }, fn('sales')), SENIORITY.leaders, CITY[3]!);
  add('title', SENIORITY.executives, COUNTRY[0]!);

  // seniorities
  add('seniority', SENIORITY.senior, R.swes);
  add('seniority', SENIORITY.senior, R.engineers);
  add('seniority', SENIORITY.junior, R.accountants);
  add('seniority', SENIORITY.interns);
  add('seniority', SENIORITY.founders);
  add('seniority', SENIORITY.directorLevel, part('people in sales', { functions: ['sales'] }, fn('sales')));
  add('seniority', SENIORITY.vps, part('in marketing', { functions: ['marketing'] }, fn('marketing')));
  add('seniority', sen('c-level executives', ['c_level']), INDUSTRY.fintech);
  add('seniority', SENIORITY.managers, part('in operations', { functions: ['operations'] }, fn('operations')));
  add('seniority', part('sales', { functions: ['sales'] }, fn('sales')), SENIORITY.leaders);
  add('seniority', SENIORITY.executives, SIZE.large);
  add('seniority', SENIORITY.senior, R.nurses);

  // places
  const roleCycle = [R.engineers, R.nurses, R.teachers, R.marketers, R.recruiters, R.accountants, R.salesPeople, R.designers, R.productManagers, R.cfos, R.electricians, R.dataScientists, R.attorneys, R.hrPeople];
  CITY.forEach((p, k) => add('city', roleCycle[k % roleCycle.length]!, p));
  REGION.forEach((p, k) => add('region', roleCycle[(k + 3) % roleCycle.length]!, p));
  COUNTRY.forEach((p, k) => add('country', roleCycle[(k + 6) % roleCycle.length]!, p));
  add('country', R.engineers, country('in Europe', 'GB', 'IE', 'DE', 'FR', 'ES', 'PT', 'IT', 'NL', 'BE', 'LU', 'CH', 'AT', 'SE', 'DK', 'NO', 'FI', 'IS', 'PL', 'CZ', 'SK', 'HU', 'RO', 'BG', 'GR', 'HR', 'SI', 'EE', 'LV', 'LT', 'UA', 'RS', 'CY', 'MT'));
  QUALIFIED.forEach((p, k) => add('qualified place', [R.engineers, R.salesPeople, R.financePeople][k % 3]!, p));
  AMBIGUOUS.forEach((p, k) => add('ambiguous place', [R.engineers, R.marketers, R.salesPeople][k % 3]!, p));

  // industries
  add('industry', R.cfos, INDUSTRY.healthcare);
  add('industry', R.nurses, INDUSTRY.hospitals);
  add('industry', R.physicians, INDUSTRY.hospitals);
  add('industry', R.teachers, INDUSTRY.schools);
  add('industry', R.professors, INDUSTRY.universities);
  add('industry', R.attorneys, INDUSTRY.lawFirms);
  add('industry', R.plantManagers, INDUSTRY.manufacturers);
  add('industry', R.qualityEngineers, INDUSTRY.automotive);
  add('industry', R.engineers, INDUSTRY.fintech);
  add('industry', R.marketers, INDUSTRY.saas);
  add('industry', R.accountants, INDUSTRY.accountingFirms);
  add('industry', R.recruiters, INDUSTRY.staffing);
  add('industry', R.dataScientists, INDUSTRY.biotech);
  add('industry', R.designers, INDUSTRY.games);
  add('industry', R.electricians, INDUSTRY.construction);
  add('industry', R.socialWorkers, INDUSTRY.government);
  add('industry', R.salesPeople, INDUSTRY.banks);
  add('industry', R.productManagers, INDUSTRY.ecommerce);

  // company sizes
  add('company size', R.ctos, SIZE.startups);
  add('company size', R.cfos, SIZE.over1000);
  add('company size', R.engineers, SIZE.from50to200);
  add('company size', SENIORITY.founders, SIZE.under50);
  add('company size', R.recruiters, SIZE.enterprise);
  add('company size', R.marketers, SIZE.midSize);
  add('company size', asked('sales managers', 'Sales Manager'), SIZE.from200to1000);
  add('company size', R.ceos, SIZE.small);
  add('company size', R.dataScientists, SIZE.atLeast10k);
  add('company size', asked('HR managers', 'HR Manager'), SIZE.under500);
  add('company size', R.nurses, SIZE.large);
  add('company size', R.plantManagers, SIZE.large);

  // named companies, drawn from the directory: the ones with the most people, and a hospital
  const companies = new Map<string, Company>();
  const headcount = new Map<string, number>();
  for (const r of records) {
    if (r.type === 'company') companies.set(r.id, r);
    else headcount.set(r.company_id, (headcount.get(r.company_id) ?? 0) + 1);
  }
  const ranked = [...companies.values()].sort((a, b) => (headcount.get(b.id) ?? 0) - (headcount.get(a.id) ?? 0) || (a.id < b.id ? -1 : 1));
  const nameOf = (c: Company) => c.name.replace(/\s+(GmbH|Ltd|Inc\.|AG|B\.V\.|SAS|Pty Ltd|S\.A\.|SpA|LLC|PLC|AB|A\/S|AS|Oy|Pvt Ltd|S\.L\.|Lda|NV|SA|SRL|LLP)$/, '');
  const at = (c: Company, text = `at ${nameOf(c)}`) => part(text, { companies: [normalizeCompanyName(c.name)] }, (p) => p.company_id === c.id);
  const hospital = ranked.find((c) => c.industry === 'Hospital & Health Care')!;
  const [c1, c2, c3, c4, c5, c6] = ranked;
  add('named company', R.engineers, at(c1!));
  add('named company', part('people', {}, everyone), at(c2!));
  add('named company', R.salesPeople, at(c3!));
  add('named company', part('employees', {}, everyone), at(c4!, `of ${nameOf(c4!)}`));
  add('named company', R.productManagers, part('working', {}, everyone), at(c5!));
  add('named company', R.nurses, at(hospital));
  add('named company', R.cfos, at(c6!));
  add('named company', SENIORITY.senior, R.engineers, at(c1!), country(`in ${c1!.hq.country_code === 'US' ? 'the United States' : 'the UK'}`, c1!.hq.country_code === 'US' ? 'US' : 'GB'));

  // exclusions
  const usBig = ranked.find((c) => c.hq.country_code === 'US')!;
  add('exclusion', R.engineers, country('in the US,', 'US'), exclude(`not at ${nameOf(usBig)}`, { exclusions: { companies: [normalizeCompanyName(usBig.name)] } }, (p) => p.company_id === usBig.id));
  add('exclusion', R.salesPeople, country('in Australia', 'AU'), exclude('excluding agencies', { exclusions: { industries: ['Marketing & Advertising'] } }, industry('Marketing & Advertising')));
  add('exclusion', R.hrPeople, city('in London,', 'London', 'England', 'GB'), exclude('no recruiters', { exclusions: { titles: ['Recruiter'] } }, title(/Recruiter|Talent Acquisition Specialist/)));
  add('exclusion', R.engineers, exclude('but not managers', { exclusions: { seniorities: ['manager'] } }, seniority('manager')));
  add('exclusion', R.marketers, exclude('excluding interns', { exclusions: { seniorities: ['intern'] } }, seniority('intern')));
  add('exclusion', R.nurses, country('in the US', 'US'), exclude('except nurse managers', { exclusions: { titles: ['Nurse Manager'] } }, title(/^Nurse Manager$/)));
  add('exclusion', R.dataScientists, exclude('not in fintech', { exclusions: { industries: ['Financial Services'] } }, industry('Financial Services')));
  add('exclusion', R.swes, exclude('without python', { exclusions: { keywords: ['python'] } }, mentions('python')));
  add('exclusion', R.teachers, exclude('not at universities', { exclusions: { industries: ['Higher Education'] } }, industry('Higher Education')));
  add('exclusion', part('salespeople', { functions: ['sales'] }, fn('sales')), exclude('without SDRs', { exclusions: { titles: ['Sales Development Representative'] } }, title(/^Sales Development Representative$/)), country('in Germany', 'DE'));
  add('exclusion', R.clinicalStaff, INDUSTRY.hospitals, exclude('excluding physicians', { exclusions: { titles: ['Physician'] } }, title(/Physician|Surgeon/)));
  add('exclusion', R.accountants, exclude('not at banks', { exclusions: { industries: ['Banking'] } }, industry('Banking')), country('in Canada', 'CA'));

  // keywords: required words
  add('keyword', kw('python'), R.developers, city('in Toronto', 'Toronto', 'Ontario', 'CA'));
  add('keyword', R.engineers, part('who know', {}, everyone), kw('rust', 'Rust'));
  add('keyword', SENIORITY.senior, part('backend engineers', { titles: ['Backend Engineer'] }, title(/Backend Engineer/)), part('who know', {}, everyone), kw('rust', 'Rust'), city('in Berlin', 'Berlin', 'Berlin', 'DE'));
  add('keyword', kw('kubernetes'), R.engineers);
  add('keyword', R.salesPeople, part('with', {}, everyone), kw('salesforce'), part('experience', {}, everyone));
  add('keyword', kw('figma'), R.designers);
  add('keyword', R.marketers, part('who know', {}, everyone), kw('hubspot', 'HubSpot'));
  add('keyword', R.dataScientists, part('with', {}, everyone), kw('pytorch', 'PyTorch'));
  add('keyword', R.nurses, part('with', {}, everyone), kw('oncology'), part('experience', {}, everyone));
  add('keyword', R.accountants, part('who know', {}, everyone), kw('netsuite', 'NetSuite'));
  add('keyword', R.engineers, part('with', {}, everyone), kw('terraform'), country('in Germany', 'DE'));
  add('keyword', R.recruiters, part('using', {}, everyone), kw('greenhouse', 'Greenhouse'));
  add('keyword', kw('kaizen'), R.plantManagers);
  add('keyword', R.welders, part('with', {}, everyone), kw('osha', 'OSHA'));
  add('keyword', kw('react', 'React'), R.developers);
  add('keyword', kw('gaap', 'GAAP'), R.financePeople, country('in the US', 'US'));

  // absent things: must return nothing
  add('absent', kw('astronaut'), R.engineers, region('in Texas', 'Texas', 'US'));
  add('absent', kw('astronauts'), part('on the', {}, everyone), kw('moon', 'Moon'));
  add('absent', part('chief happiness officers', { seniorities: ['c_level'], keywords: ['happiness', 'officers'] }, nobody));
  add('absent', part('blockchain wizards', { keywords: ['blockchain', 'wizards'] }, nobody), city('in Berlin', 'Berlin', 'Berlin', 'DE'));
  add('absent', kw('veterinarians'), region('in Ohio', 'Ohio', 'US'));
  add('absent', kw('pilots'), part('at airlines', { industries: ['Aviation & Aerospace'] }, industry('Aviation & Aerospace')));
  add('absent', kw('dentists'), city('in London', 'London', 'England', 'GB'));
  add('absent', R.ceos, part('at Zyzzyva Quantum Holdings', { companies: ['zyzzyva quantum holdings'] }, nobody));
  add('absent', R.nurses, country('in Antarctica', 'AQ'));
  add('absent', R.swes, city('in Portland, Maine', 'Portland', 'Maine', 'US'));
  add('absent', part('marine biologists', { keywords: ['marine', 'biologists'] }, nobody));
  add('absent', kw('chefs'), city('in Paris', 'Paris', 'Île-de-France', 'FR'));
  add('absent', kw('firefighters'), city('in Chicago', 'Chicago', 'Illinois', 'US'));
  add('absent', kw('farmers'), region('in Iowa', 'Iowa', 'US'));
  add('absent', part('founders', { seniorities: ['founder'] }, seniority('founder')), part('at companies with over 150000 employees', { companySize: { min: 150001 } }, size(150001, Infinity)), region('in Wales', 'Wales', 'GB'));
  add('absent', part('interns who are', { seniorities: ['intern'] }, seniority('intern')), R.ceos);
  return set;
}

export interface QueryScore {
  category: Category;
  query: string;
  returned: number;
  relevant: number;
  correct: number;
  /** correct / returned (1 when nothing was returned) */
  precision: number;
  /** correct / relevant (1 when nothing is relevant) */
  recall: number;
}

/**
 * Scores each query: every returned lead is checked against the raw record, and recall is
 * against a brute-force scan of every person. `search` must return all matches (no page limit).
 */
export async function scoreEvaluation(set: EvaluationQuery[], records: DirectoryRecord[], search: (query: string) => Promise<{ person: Person }[]>): Promise<QueryScore[]> {
  const companies = new Map<string, Company>();
  const people: Person[] = [];
  for (const r of records) {
    if (r.type === 'company') companies.set(r.id, r);
    else people.push(r);
  }
  const scores: QueryScore[] = [];
  for (const e of set) {
    const relevant = new Set(people.filter((p) => e.truth(p, companies.get(p.company_id)!)).map((p) => p.id));
    const hits = await search(e.query);
    const correct = hits.filter((h) => e.truth(h.person, companies.get(h.person.company_id)!)).length;
    scores.push({
      category: e.category,
      query: e.query,
      returned: hits.length,
      relevant: relevant.size,
      correct,
      precision: hits.length ? correct / hits.length : 1,
      recall: relevant.size ? hits.filter((h) => relevant.has(h.person.id)).length / relevant.size : 1,
    });
  }
  return scores;
}

/** Mean precision and recall per category and overall. */
export function summarize(scores: QueryScore[]): { category: string; queries: number; precision: number; recall: number }[] {
  const groups = new Map<string, QueryScore[]>();
  for (const s of scores) groups.set(s.category, [...(groups.get(s.category) ?? []), s]);
  const row = (category: string, ss: QueryScore[]) => ({
    category,
    queries: ss.length,
    precision: ss.reduce((a, s) => a + s.precision, 0) / ss.length,
    recall: ss.reduce((a, s) => a + s.recall, 0) / ss.length,
  });
  return [...CATEGORIES.filter((c) => groups.has(c)).map((c) => row(c, groups.get(c)!)), row('overall', scores)];
}
