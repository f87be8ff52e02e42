import { lookupKeys, normalizeCompanyName, normalizeDomain, normalizeName, normalizeProfessionalUrl } from '../../../shared/directory/urls.js';
import type { Company, Person } from '../../../shared/directory/types.js';

describe('normalizeProfessionalUrl', () => {
  it.each([
    ['linkedin.com/in/jane-doe-3f9a1c', 'linkedin.com/in/jane-doe-3f9a1c'],
    ['https://www.linkedin.com/in/jane-doe-3f9a1c/', 'linkedin.com/in/jane-doe-3f9a1c'],
    ['http://linkedin.com/in/Jane-Doe-3F9A1C', 'linkedin.com/in/jane-doe-3f9a1c'],
    ['https://uk.linkedin.com/in/jane-doe?trk=public_profile#about', 'linkedin.com/in/jane-doe'],
    ['HTTPS://WWW.LINKEDIN.COM/in/jane-doe/', 'linkedin.com/in/jane-doe'],
    ['  www.linkedin.com/in/jane-doe  ', 'linkedin.com/in/jane-doe'],
    ['https://de.linkedin.com/in/j%C3%BCrgen-m%C3%BCller-12', 'linkedin.com/in/jürgen-müller-12'],
    ['linkedin.com:443/in/jane-doe', 'linkedin.com/in/jane-doe'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeProfessionalUrl(input)).toBe(expected);
  });

  it.each([
    [''],
    ['jane-doe'],
    ['https://linkedin.com/company/northwind'],
    ['https://linkedin.com/in/'],
    ['https://linkedin.com/in/jane/details/experience'],
    ['https://evil.com/in/jane-doe'],
    ['https://linkedin.com.evil.com/in/jane-doe'],
    ['https://notlinkedin.com/in/jane-doe'],
    ['ftp://linkedin.com/in/jane-doe'],
    ['javascript:alert(1)//linkedin.com/in/x'],
    ['https://linkedin.com/in/jane doe'],
  ])('rejects %s', (input) => {
    expect(normalizeProfessionalUrl(input)).toBeNull();
  });
});

describe('name and domain normalization', () => {
  it('normalizes person names', () => {
    expect(normalizeName('  José   Álvarez ')).toBe('jose alvarez');
    expect(normalizeName("Zoë O'Brien")).toBe('zoe obrien');
    expect(normalizeName('Mary-Jane WATSON')).toBe('mary jane watson');
    expect(normalizeName('Łukasz Wiśniewski')).toBe('lukasz wisniewski');
  });

  it('normalizes company names without legal suffixes', () => {
    expect(normalizeCompanyName('Northwind Analytics, Inc.')).toBe('northwind analytics');
    expect(normalizeCompanyName('Bluepeak Health GmbH')).toBe('bluepeak health');
    expect(normalizeCompanyName('ACME GmbH & Co. KG')).toBe('acme');
    expect(normalizeCompanyName('Silverline Software Ltd')).toBe('silverline software');
    expect(normalizeCompanyName('Summit Capital B.V.')).toBe('summit capital');
    expect(normalizeCompanyName('Procter & Gamble Co.')).toBe('procter and gamble');
    expect(normalizeCompanyName('Corp')).toBe('corp'); // never strips a name down to nothing
  });

  it('normalizes domains', () => {
    expect(normalizeDomain('https://www.Example.co.uk/about?x=1')).toBe('example.co.uk');
    expect(normalizeDomain('jane@Northwind.io')).toBe('northwind.io');
    expect(normalizeDomain('northwind.io.')).toBe('northwind.io');
    expect(normalizeDomain('http://northwind.io:8080')).toBe('northwind.io');
  });
});

describe('lookupKeys', () => {
  const company: Company = {
    type: 'company', id: 'c_1', name: 'Bluepeak Health GmbH', domain: 'bluepeakhealth.de', professional_url: 'linkedin.com/company/bluepeak-health',
    industry: 'Hospital & Health Care', employee_count: 420,
    hq: { city: 'Munich', region: 'Bavaria', country: 'Germany', country_code: 'DE', time_zone: 'Europe/Berlin' },
  };
  const person: Person = {
    type: 'person', id: 'p_1', company_id: 'c_1', first_name: 'Jürgen', last_name: 'Müller', full_name: 'Jürgen Müller',
    headline: 'CFO', current_job_title: 'Chief Financial Officer', function: 'finance', seniority: 'c_level', location: company.hq,
    professional_url: 'linkedin.com/in/jurgen-muller-3f9a1c', work_email: 'juergen.mueller@bluepeakhealth.de', phone: null,
    experience: [], education: [], skills: [],
  };

  it('lists url, email, name+domain and name+company keys in normalized form', () => {
    expect(lookupKeys(person, company)).toEqual([
      'url#linkedin.com/in/jurgen-muller-3f9a1c',
      'email#juergen.mueller@bluepeakhealth.de',
      'namedomain#jurgen|muller|bluepeakhealth.de',
      'namecompany#jurgen|muller|bluepeak health',
    ]);
  });

  it('omits the email key when there is no email', () => {
    expect(lookupKeys({ ...person, work_email: null }, company).some((k) => k.startsWith('email#'))).toBe(false);
  });
});
