import { parseQuery, singular, titleKeys, type ParsedQuery } from '../../../shared/search/query.js';
import { TITLES_BY_FUNCTION, TITLE_ROLES } from '../../../shared/directory/taxonomy.js';
import { expected, type Partial2 } from './expected.js';

describe('parseQuery', () => {
  it.each<[string, Partial2<ParsedQuery>]>([
    ['CTOs', { titles: ['Chief Technology Officer'] }],
    ['VP of Sales', { titles: ['VP of Sales'] }],
    ['vice presidents of sales', { titles: ['VP of Sales'] }],
    ['heads of marketing', { titles: ['Head of Marketing'] }],
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
    expect(parseQuery(text)).toEqual(expected(want));
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['engineers in NYC', { functions: ['engineering'], locations: { cities: ['New York'] } }],
    ['engineers in New York City', { functions: ['engineering'], locations: { cities: ['New York'] } }],
    ['designers in SF', { titles: ['Designer'], locations: { cities: ['San Francisco'] } }],
    ['designers in the Bay Area', { titles: ['Designer'], locations: { cities: ['San Francisco', 'San Jose', 'Oakland'] } }],
    ['CFOs in the UK', { titles: ['Chief Financial Officer'], locations: { countries: ['GB'] } }],
    ['CFOs in Britain', { titles: ['Chief Financial Officer'], locations: { countries: ['GB'] } }],
    ['CFOs in the U.S.', { titles: ['Chief Financial Officer'], locations: { countries: ['US'] } }],
    ['CFOs in America', { titles: ['Chief Financial Officer'], locations: { countries: ['US'] } }],
    ['CFOs in Germany', { titles: ['Chief Financial Officer'], locations: { countries: ['DE'] } }],
    ['recruiters based in Berlin', { titles: ['Recruiter'], locations: { cities: ['Berlin'] } }],
    ['recruiters in Berlin, Germany', { titles: ['Recruiter'], locations: { cities: ['Berlin'], countries: ['DE'] } }],
    ['recruiters in Texas', { titles: ['Recruiter'], locations: { regions: ['Texas'] } }],
    ['recruiters in Köln or München', { titles: ['Recruiter'], locations: { cities: ['Cologne', 'Munich'] } }],
    ['marketers in São Paulo', { functions: ['marketing'], locations: { cities: ['São Paulo'] } }],
    ['lawyers in Reading', { titles: ['Legal Counsel'], locations: { cities: ['Reading'] } }],
    ['reading lists', { keywords: ['reading', 'lists'] }],
    ['people who help us', { keywords: ['help'] }],
  ])('places: %s', (text, want) => {
    expect(parseQuery(text)).toEqual(expected(want));
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
    expect(parseQuery(text)).toEqual(expected(want));
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
    expect(parseQuery('enterprise account executives')).toEqual(expected({ titles: ['Enterprise Account Executive'] }));
    expect(parseQuery('enterprise sales reps').companySize).toBeNull();
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['engineers at Northwind Analytics', { functions: ['engineering'], companies: ['northwind analytics'] }],
    ['engineers working at Northwind Analytics in Berlin', { functions: ['engineering'], companies: ['northwind analytics'], locations: { cities: ['Berlin'] } }],
    ['product managers at Bluepeak Health or Silverline Software', { titles: ['Product Manager'], companies: ['bluepeak health', 'silverline software'] }],
    ['engineers at bluepeak health', { functions: ['engineering'], companies: ['bluepeak health'] }],
    ['employees of Acme Inc.', { companies: ['acme'] }],
    ['engineers at a fintech startup', { functions: ['engineering'], industries: ['Financial Services'], companySize: { max: 200 } }],
  ])('companies: %s', (text, want) => {
    expect(parseQuery(text)).toEqual(expected(want));
  });

  it.each<[string, Partial2<ParsedQuery>]>([
    ['data scientists not at Google', { titles: ['Data Scientist'], exclusions: { companies: ['google'] } }],
    ['marketers excluding agencies', { functions: ['marketing'], exclusions: { industries: ['Marketing & Advertising'] } }],
    ['people at Northwind except interns', { companies: ['northwind'], exclusions: { seniorities: ['intern'] } }],
    ['HR people in London, no recruiters', { functions: ['hr'], locations: { cities: ['London'] }, exclusions: { titles: ['Recruiter'] } }],
    ['designers excluding Acme Corp and Globex', { titles: ['Designer'], exclusions: { companies: ['acme', 'globex'] } }],
    ['engineers but not managers', { functions: ['engineering'], exclusions: { seniorities: ['manager'] } }],
    ['salespeople without SDRs in Germany', { functions: ['sales'], exclusions: { titles: ['Sales Development Representative'] }, locations: { countries: ['DE'] } }],
  ])('exclusions: %s', (text, want) => {
    expect(parseQuery(text)).toEqual(expected(want));
  });

  it('keeps unknown words as keywords, is robust to case and punctuation', () => {
    expect(parseQuery('Kubernetes + Rust engineers in MUNICH!!!')).toEqual(
      expected({ functions: ['engineering'], locations: { cities: ['Munich'] }, keywords: ['kubernetes', 'rust'] }),
    );
    expect(parseQuery('  cto;;; BERLIN  ')).toEqual(parseQuery('CTO in Berlin'));
    expect(parseQuery('')).toEqual(expected({}));
  });

  it('parses a long combined query', () => {
    expect(
      parseQuery('Senior data engineers at mid-market fintech companies in the Bay Area or Seattle, not at Northwind Analytics, excluding interns, python'),
    ).toEqual(
      expected({
        titles: ['Data Engineer'],
        seniorities: ['senior'],
        companySize: { min: 201, max: 999 },
        industries: ['Financial Services'],
        locations: { cities: ['San Francisco', 'San Jose', 'Oakland', 'Seattle'] },
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

  it('singularizes consistently', () => {
    expect(['companies', 'businesses', 'ctos', 'vps', 'sales', 'analytics', 'us', 'boss'].map(singular)).toEqual([
      'company', 'business', 'cto', 'vp', 'sale', 'analytic', 'us', 'boss',
    ]);
  });
});
