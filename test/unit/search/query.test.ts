import { parseQuery, singular, titleKeys, type ParsedQuery } from '../../../shared/search-engine/query.js';
import { TITLES_BY_FUNCTION, TITLE_ROLES } from '../../../shared/directory/taxonomy.js';
import { constraints, expected, place, type Partial2 } from './expected.js';

const BAY_AREA = [place('San Francisco', 'California', 'US'), place('San Jose', 'California', 'US'), place('Oakland', 'California', 'US')];

describe('parseQuery', () => {
  it.each<[string, Partial2<ParsedQuery>]>([
    ['CTOs', { titles: ['Chief Technology Officer'] }],
    ['VP of Sales', { titles: ['VP of Sales'] }],
    ['vice presidents of sales', { titles: ['VP of Sales'] }],
    ['heads of marketing', { titles: ['Head of Marketing', 'Director of Marketing', 'VP of Marketing'] }],
    ['software engineers', { titles: ['Software Engineer'] }],
    ['Data Scientists!!', { titles: ['Data Scientist'] }],
    ['VPs of sales and marketing', { titles: ['VP of Sales', 'VP of Marketing'] }],
    ['senior software engineers', { titles: ['Software Engineer'], seniorities: ['senior'] }],
    ['director-level people', { seniorities: ['director'] }],
    ['executives', { seniorities: ['c_level', 'vp'] }],
    ['c-level executives', { seniorities: ['c_level'] }],
    ['founders and co-founders', { seniorities: ['founder'] }],
    ['sales leaders', { functions: ['sales'], seniorities: ['director', 'vp', 'c_level'] }],
    ['people in IT', { functions: ['it_security'] }],
    ['it is what it is', {}],
  ])('roles: %s', (text, want) => {
    expect(constraints(parseQuery(text))).toEqual(expected(want));
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['engineers in NYC', { functions: ['engineering'], locations: [place('New York', 'New York', 'US')] }],
    ['engineers in New York City', { functions: ['engineering'], locations: [place('New York', 'New York', 'US')] }],
    ['designers in SF', { titles: ['Designer'], locations: [place('San Francisco', 'California', 'US')] }],
    ['designers in the Bay Area', { titles: ['Designer'], locations: BAY_AREA }],
    ['CFOs in the UK', { titles: ['Chief Financial Officer'], locations: [place(null, null, 'GB')] }],
    ['CFOs in Britain', { titles: ['Chief Financial Officer'], locations: [place(null, null, 'GB')] }],
    ['CFOs in the U.S.', { titles: ['Chief Financial Officer'], locations: [place(null, null, 'US')] }],
    ['CFOs in America', { titles: ['Chief Financial Officer'], locations: [place(null, null, 'US')] }],
    ['CFOs in Germany', { titles: ['Chief Financial Officer'], locations: [place(null, null, 'DE')] }],
    ['recruiters based in Berlin', { titles: ['Recruiter'], locations: [place('Berlin', 'Berlin', 'DE')] }],
    ['recruiters in Berlin, Germany', { titles: ['Recruiter'], locations: [place('Berlin', 'Berlin', 'DE')] }],
    ['recruiters in Texas', { titles: ['Recruiter'], locations: [place(null, 'Texas', 'US')] }],
    ['recruiters in Köln or München', { titles: ['Recruiter'], locations: [place('Cologne', 'North Rhine-Westphalia', 'DE'), place('Munich', 'Bavaria', 'DE')] }],
    ['marketers in São Paulo', { functions: ['marketing'], locations: [place('São Paulo', 'São Paulo', 'BR')] }],
    ['lawyers in Reading', { titles: ['Attorney'], locations: [place('Reading', 'England', 'GB')] }],
    ['reading lists', { keywords: ['reading', 'lists'] }],
    ['people who help us', {}],
    ['engineers in London, Ontario', { functions: ['engineering'], locations: [place('London', 'Ontario', 'CA')] }],
    ['engineers in London, England', { functions: ['engineering'], locations: [place('London', 'England', 'GB')] }],
    ['engineers in London, UK', { functions: ['engineering'], locations: [place('London', 'England', 'GB')] }],
    ['engineers in Portland', { functions: ['engineering'], locations: [place('Portland', 'Oregon', 'US')] }],
    ['engineers in Portland, Maine', { functions: ['engineering'], locations: [place('Portland', 'Maine', 'US')] }],
    ['engineers in Paris, Texas', { functions: ['engineering'], locations: [place('Paris', 'Texas', 'US')] }],
    ['engineers in Ontario, Canada', { functions: ['engineering'], locations: [place(null, 'Ontario', 'CA')] }],
  ])('places: %s', (text, want) => {
    expect(constraints(parseQuery(text))).toEqual(expected(want));
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['fintech CTOs', { titles: ['Chief Technology Officer'], industries: ['Financial Services'] }],
    ['health tech founders', { seniorities: ['founder'], industries: ['Hospital & Health Care'] }],
    ['healthtech founders', { seniorities: ['founder'], industries: ['Hospital & Health Care'] }],
    ['SaaS marketers', { functions: ['marketing'], industries: ['Computer Software'] }],
    ['adtech sales reps', { titles: ['Sales Representative'], industries: ['Marketing & Advertising'] }],
    ['e-commerce product managers', { titles: ['Product Manager'], industries: ['Retail'] }],
    ['designers at marketing agencies', { titles: ['Designer'], industries: ['Marketing & Advertising'] }],
    ['engineers at non-profits', { functions: ['engineering'], industries: ['Nonprofit Organization Management'] }],
  ])('industries: %s', (text, want) => {
    expect(constraints(parseQuery(text))).toEqual(expected(want));
  });

  it.each<[string, ParsedQuery['companySize']]>([
    ['CTOs at companies with 50-200 employees', { min: 50, max: 200 }],
    ['CTOs at companies with 50 to 200 employees', { min: 50, max: 200 }],
    ['CTOs at companies with fewer than 50 employees', { max: 49 }],
    ['CTOs at companies with under 50 staff', { max: 49 }],
    ['CTOs at companies with over 1000 employees', { min: 1001 }],
    ['CTOs at companies with more than 1,000 employees', { min: 1001 }],
    ['CTOs at companies with 1000+ employees', { min: 1000 }],
    ['CTOs at companies with at least 10k employees', { min: 10000 }],
    ['CTOs at startups', { max: 200 }],
    ['CTOs at small companies', { max: 200 }],
    ['CTOs at mid-size companies', { min: 201, max: 999 }],
    ['CTOs at mid-market firms', { min: 201, max: 999 }],
    ['CTOs at enterprise companies', { min: 1000 }],
    ['CTOs at enterprises', { min: 1000 }],
    ['CTOs at large companies', { min: 1000 }],
    ['CTOs at startups with fewer than 50 employees', { max: 49 }],
  ])('size: %s', (text, size) => {
    const q = parseQuery(text);
    expect(q.companySize).toEqual(size);
    expect(q.titles).toEqual(['Chief Technology Officer']);
    expect(q.keywords).toEqual([]);
  });

  it('does not read "enterprise" in a sales title as a company size', () => {
    expect(constraints(parseQuery('enterprise account executives'))).toEqual(expected({ titles: ['Enterprise Account Executive'] }));
    expect(parseQuery('enterprise sales reps').companySize).toBeNull();
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['engineers at Northwind Analytics', { functions: ['engineering'], companies: ['northwind analytics'] }],
    ['engineers working at Northwind Analytics in Berlin', { functions: ['engineering'], companies: ['northwind analytics'], locations: [place('Berlin', 'Berlin', 'DE')] }],
    ['product managers at Bluepeak Health or Silverline Software', { titles: ['Product Manager'], companies: ['bluepeak health', 'silverline software'] }],
    ['engineers at bluepeak health', { functions: ['engineering'], companies: ['bluepeak health'] }],
    ['employees of Acme Inc.', { companies: ['acme'] }],
    ['CFOs at Razoa io', { titles: ['Chief Financial Officer'], companies: ['razoa io'] }],
    ['engineers at a fintech startup', { functions: ['engineering'], industries: ['Financial Services'], companySize: { max: 200 } }],
  ])('companies: %s', (text, want) => {
    expect(constraints(parseQuery(text))).toEqual(expected(want));
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['data scientists not at Google', { titles: ['Data Scientist'], exclusions: { companies: ['google'] } }],
    ['marketers excluding agencies', { functions: ['marketing'], exclusions: { industries: ['Marketing & Advertising'] } }],
    ['people at Northwind except interns', { companies: ['northwind'], exclusions: { seniorities: ['intern'] } }],
    ['HR people in London, no recruiters', { functions: ['hr'], locations: [place('London', 'England', 'GB')], exclusions: { titles: ['Recruiter'] } }],
    ['designers excluding Acme Corp and Globex', { titles: ['Designer'], exclusions: { companies: ['acme', 'globex'] } }],
    ['engineers but not managers', { functions: ['engineering'], exclusions: { seniorities: ['manager'] } }],
    ['salespeople without SDRs in Germany', { functions: ['sales'], exclusions: { titles: ['Sales Development Representative'] }, locations: [place(null, null, 'DE')] }],
  ])('exclusions: %s', (text, want) => {
    expect(constraints(parseQuery(text))).toEqual(expected(want));
  });

  it('keeps unknown words as keywords, is robust to case and punctuation', () => {
    expect(constraints(parseQuery('Kubernetes + Rust engineers in MUNICH!!!'))).toEqual(
      expected({ functions: ['engineering'], locations: [place('Munich', 'Bavaria', 'DE')], keywords: ['kubernetes', 'rust'] }),
    );
    expect(constraints(parseQuery('  cto;;; BERLIN  '))).toEqual(constraints(parseQuery('CTO in Berlin')));
    expect(parseQuery('')).toEqual({ ...expected({}), terms: [] });
  });

  it('parses a long combined query', () => {
    expect(
      constraints(parseQuery('Senior data engineers at mid-market fintech companies in the Bay Area or Seattle, not at Northwind Analytics, excluding interns, python')),
    ).toEqual(
      expected({
        titles: ['Data Engineer'],
        seniorities: ['senior'],
        companySize: { min: 201, max: 999 },
        industries: ['Financial Services'],
        locations: [...BAY_AREA, place('Seattle', 'Washington', 'US')],
        exclusions: { companies: ['northwind analytics'], seniorities: ['intern'] },
        keywords: ['python'],
      }),
    );
  });
});

describe('titleKeys', () => {
  it('maps titles to canonical roles with parents', () => {
    expect(titleKeys('Senior Frontend Engineer')).toEqual(['Frontend Engineer', 'Software Engineer']);
    expect(titleKeys('Co-Founder & CTO')).toEqual(['Chief Technology Officer']);
    expect(titleKeys('Product Marketing Manager')).toEqual(['Product Marketing Manager']);
    expect(titleKeys('Software Engineering Intern')).toEqual([]);
  });

  it('finds a canonical role in every generated non-intern title', () => {
    const canonical = new Set(TITLE_ROLES.map((r) => r.title));
    for (const [fn, bySeniority] of Object.entries(TITLES_BY_FUNCTION)) {
      for (const [seniority, titles] of Object.entries(bySeniority)) {
        if (seniority === 'intern' || seniority === 'founder') continue;
        for (const t of titles!) {
          const keys = titleKeys(t);
          expect([t, keys.length > 0]).toEqual([t, true]);
          for (const k of keys) expect(canonical.has(k)).toBe(true);
          // The role the title maps to belongs to the same function (no "Sales Engineer" in engineering).
          const fns = keys.map((k) => TITLE_ROLES.find((r) => r.title === k)!.function);
          expect([t, fns.includes(fn as never)]).toEqual([t, true]);
        }
      }
    }
  });

  it('finds a role inside a longer title, with seniority and scope qualifiers, either side of "and", inverted', () => {
    const cases: [string, string[]][] = [
      ['Senior HR Manager', ['HR Manager']],
      ['HR Manager, EMEA', ['HR Manager']],
      ['HR Manager (EMEA)', ['HR Manager']],
      ['Lead HR Business Partner', ['HR Business Partner']],
      ['Principal Product Manager', ['Product Manager']],
      ['Head of Sales, DACH', ['Head of Sales']],
      ['Head of People Operations', ['Head of People']],
      ['Interim CFO', ['Chief Financial Officer']],
      ['VP Sales & Marketing', ['VP of Sales', 'VP of Marketing']],
      ['Director of Sales and Marketing', ['Director of Sales', 'Director of Marketing']],
      ['Sales & Marketing Director', ['Director of Marketing', 'Director of Sales']],
      ['HR & Payroll Manager', ['HR Manager']],
      ['Director, Finance', ['Director of Finance']],
      ['Senior Manager, Human Resources', ['HR Manager']],
      ['Vice President, Sales', ['VP of Sales']],
      ['Senior Vice President, Global Sales', ['VP of Sales']],
      ['Vice President of International Sales', ['VP of Sales']],
      ['Head of EMEA Sales', ['Head of Sales']],
      ['Director of North America Marketing', ['Director of Marketing']],
      ['SVP Sales', ['VP of Sales']],
      ['EVP, Marketing', ['VP of Marketing']],
    ];
    for (const [title, keys] of cases) expect([title, titleKeys(title)]).toEqual([title, keys]);
  });

  it('does not count a role that the title only names around another role', () => {
    const cases: [string, string[]][] = [
      ['HR Assistant', []],
      ['Assistant HR Manager', []],
      ['Executive Assistant to the CEO', []],
      ['Chief of Staff to the CEO', ['Chief of Staff']],
      ['Associate Director of Finance', []],
      ['Deputy Head of Sales', []],
      ['Assistant Vice President, Marketing', []],
      ['Former VP of Sales', []],
      ['Software Engineer Intern', []],
      ['VP of Sales Operations', []],
      ['Director of Sales Engineering', []],
      ['Head of People Analytics', []],
      // What does not count hides nothing shorter inside it.
      ['Associate General Counsel', ['Legal Counsel', 'Attorney']],
      // Traps: a shared word is not a shared role.
      ['Sales Engineer', ['Sales Engineer']],
      ['Account Executive', ['Account Executive']],
      ['Account Manager, Sales', ['Account Manager']],
      ['Key Account Manager', ['Account Manager']],
      // A longer canonical title that starts with a qualifier word is that title.
      ['Associate Product Manager', ['Associate Product Manager', 'Product Manager']],
      ['Assistant Professor', ['Assistant Professor', 'Professor']],
      ['Deputy General Counsel', ['Deputy General Counsel']],
    ];
    for (const [title, keys] of cases) expect([title, titleKeys(title)]).toEqual([title, keys]);
  });

  it('singularizes consistently', () => {
    expect(['companies', 'businesses', 'ctos', 'vps', 'sales', 'analytics', 'us', 'boss'].map(singular)).toEqual([
      'company', 'business', 'cto', 'vp', 'sale', 'analytic', 'us', 'boss',
    ]);
  });
});

describe('title equivalences', () => {
  it.each<[string, string[]]>([
    ['HR managers', ['HR Manager', 'People Operations Manager', 'HR Business Partner', 'HR Director', 'Director of People', 'Head of People', 'VP of Human Resources', 'VP of People']],
    ['people ops managers', ['People Operations Manager', 'HR Manager', 'HR Business Partner', 'HR Director', 'Director of People', 'Head of People', 'VP of Human Resources', 'VP of People']],
    ['heads of people', ['Head of People', 'HR Director', 'Director of People', 'VP of Human Resources', 'VP of People']],
    ['VPs of HR', ['VP of Human Resources', 'VP of People']],
    ['finance directors', ['Director of Finance', 'Head of Finance', 'VP of Finance']],
    ['directors of finance', ['Director of Finance', 'Head of Finance', 'VP of Finance']],
    ['marketing directors', ['Director of Marketing', 'Head of Marketing', 'VP of Marketing']],
    ['VP of Sales', ['VP of Sales']],
    ['heads of sales', ['Head of Sales', 'Director of Sales', 'VP of Sales']],
    ['sales managers', ['Sales Manager', 'Director of Sales', 'Head of Sales', 'VP of Sales']],
    ['CTOs', ['Chief Technology Officer']],
    ['chief technology officers', ['Chief Technology Officer']],
    // Individual roles stand for themselves: a product manager, an account manager and a CSM manage no function.
    ['product managers', ['Product Manager']],
    ['account managers', ['Account Manager']],
    ['customer success managers', ['Customer Success Manager']],
    ['sales engineers', ['Sales Engineer']],
  ])('%s', (text, titles) => {
    const q = parseQuery(text);
    expect(q.titles).toEqual(titles);
    expect(q.terms.filter((t) => t.use === 'title').map((t) => t.variants)).toEqual([titles]);
  });

  it('a function asked for finds its leaders at every level; an exclusion removes every variant', () => {
    expect(constraints(parseQuery('sales leaders'))).toEqual(expected({ functions: ['sales'], seniorities: ['director', 'vp', 'c_level'] }));
    expect(parseQuery('HR people excluding HR managers').exclusions.titles).toEqual(parseQuery('HR managers').titles);
  });
});

describe('term accounting', () => {
  const uses = (text: string) => parseQuery(text).terms.map((t) => [t.text, t.use, t.value ?? t.reason ?? null, t.excluded ?? false]);

  it('accounts for every word: constraints, required keywords and ignored stop words with a reason', () => {
    expect(uses('senior backend engineers who know Rust in Berlin')).toEqual([
      ['senior', 'seniority', 'senior', false],
      ['backend engineers', 'title', 'Backend Engineer', false],
      ['who', 'ignored', 'stop word', false],
      ['know', 'ignored', 'stop word', false],
      ['Rust', 'keyword', 'rust', false],
      ['in', 'ignored', 'stop word', false],
      ['Berlin', 'location', 'Berlin, Berlin, DE', false],
    ]);
    expect(constraints(parseQuery('senior backend engineers who know Rust in Berlin')).keywords).toEqual(['rust']);
  });

  it('keeps an unknown role as a required keyword instead of dropping it', () => {
    const q = parseQuery('astronaut engineers in Texas');
    expect(q.keywords).toEqual(['astronaut']);
    expect(uses('astronaut engineers in Texas')[0]).toEqual(['astronaut', 'keyword', 'astronaut', false]);
  });

  it('reports sizes, companies, exclusions and numbers', () => {
    expect(uses('CFOs at companies with 50-200 employees, not at Acme, without salesforce 42')).toEqual([
      ['CFOs', 'title', 'Chief Financial Officer', false],
      ['at', 'ignored', 'stop word', false],
      ['companies', 'ignored', 'stop word', false],
      ['with', 'ignored', 'stop word', false],
      ['50-200 employees', 'company_size', '50-200 employees', false],
      ['not', 'negation', null, false],
      ['at', 'ignored', 'introduces a company name', false],
      ['Acme', 'company', 'acme', true],
      ['without', 'negation', null, false],
      ['salesforce', 'keyword', 'salesforce', true],
      ['42', 'ignored', 'a number without a unit', false],
    ]);
  });

  it('maps titles, abbreviations and plurals both ways', () => {
    for (const [a, b] of [['CFOs', 'chief financial officers'], ['SDR', 'sales development representatives'], ['AEs', 'account executive'], ['RNs', 'registered nurses'], ['devs', 'developer'], ['VP of Sales', 'vice presidents of sales']]) {
      expect([a, parseQuery(a!).titles]).toEqual([a, parseQuery(b!).titles]);
      expect(parseQuery(a!).titles).toHaveLength(1);
    }
    expect(parseQuery('nurses').titles).toEqual(['Nurse']);
    expect(titleKeys('Senior Registered Nurse')).toEqual(['Registered Nurse', 'Nurse']);
    expect(titleKeys('CFO')).toEqual(titleKeys('Chief Financial Officer'));
  });
});
