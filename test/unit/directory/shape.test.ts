import { toDeepSearchItem, toLead, toProfessionalProfile } from '../../../shared/directory/shape.js';
import type { Company, Person } from '../../../shared/directory/types.js';

const company: Company = {
  type: 'company', id: 'c_1', name: 'Northwind Analytics', domain: 'northwindanalytics.com', professional_url: 'linkedin.com/company/northwind-analytics',
  industry: 'Computer Software', employee_count: 120,
  hq: { city: 'Austin', region: 'Texas', country: 'United States', country_code: 'US', time_zone: 'America/Chicago' },
};
const person: Person = {
  type: 'person', id: 'p_1', company_id: 'c_1', first_name: 'Jane', last_name: 'Doe', full_name: 'Jane Doe',
  headline: 'VP of Sales at Northwind Analytics', current_job_title: 'VP of Sales', function: 'sales', seniority: 'vp',
  location: { city: 'Austin', region: 'Texas', country: 'United States', country_code: 'US', time_zone: 'America/Chicago' },
  professional_url: 'linkedin.com/in/jane-doe-3f9a1c', work_email: 'jane.doe@northwindanalytics.com', phone: '+15125550123',
  experience: [
    { company_name: 'Northwind Analytics', company_id: 'c_1', title: 'VP of Sales', start: '2021-03', end: null },
    { company_name: 'Bluepeak Health', company_id: null, title: 'Sales Director', start: '2016-01', end: '2021-02' },
  ],
  education: [{ school_name: 'University of Texas at Austin', degree: 'Bachelor of Arts', field_of_study: 'Economics', start: '2008-09', end: '2012-05' }],
  skills: ['B2B Sales'],
};

describe('shape mappers', () => {
  it('maps a Lead with exactly the SPEC fields', () => {
    const lead = toLead(person, company);
    expect(lead).toEqual({
      first_name: 'Jane', last_name: 'Doe', full_name: 'Jane Doe', current_job_title: 'VP of Sales',
      headline: 'VP of Sales at Northwind Analytics', location: 'Austin, Texas, United States',
      professional_url: 'linkedin.com/in/jane-doe-3f9a1c',
      company: { name: 'Northwind Analytics', domain: 'northwindanalytics.com', professional_url: 'linkedin.com/company/northwind-analytics', industry: 'Computer Software', employee_count: 120 },
    });
  });

  it('does not repeat a city-state in the location and nulls a non-profile company URL', () => {
    const sg = { city: 'Singapore', region: 'Singapore', country: 'Singapore', country_code: 'SG', time_zone: 'Asia/Singapore' };
    const lead = toLead({ ...person, location: sg }, { ...company, professional_url: 'https://example.com/x' });
    expect(lead.location).toBe('Singapore');
    expect(lead.company.professional_url).toBeNull();
  });

  it('maps a deep-search item with date ranges and an integer score', () => {
    const item = toDeepSearchItem(person, company, 87.6);
    expect(item.email).toBe('jane.doe@northwindanalytics.com');
    expect(item.score).toBe(88);
    expect(item.experience).toEqual([
      { company: 'Northwind Analytics', title: 'VP of Sales', date_range: '2021-03 - present' },
      { company: 'Bluepeak Health', title: 'Sales Director', date_range: '2016-01 - 2021-02' },
    ]);
    expect(toDeepSearchItem(person, company, 140).score).toBe(100);
    expect(toDeepSearchItem({ ...person, work_email: null }, company, 5).email).toBe('');
  });

  it('maps a professional profile including the current role', () => {
    const profile = toProfessionalProfile(person, company);
    expect(profile.location).toEqual({ city: 'Austin', country: 'United States', country_code: 'US' });
    expect(profile.current_position).toEqual({ title: 'VP of Sales', company_name: 'Northwind Analytics', company_industry: 'Computer Software' });
    expect(profile.experience).toEqual([
      { title: 'VP of Sales', company_name: 'Northwind Analytics', start: '2021-03', end: null },
      { title: 'Sales Director', company_name: 'Bluepeak Health', start: '2016-01', end: '2021-02' },
    ]);
    expect(profile.education[0]).toEqual({ school_name: 'University of Texas at Austin', degree: 'Bachelor of Arts', field_of_study: 'Economics', start: '2008-09', end: '2012-05' });
    expect(toProfessionalProfile({ ...person, experience: person.experience.slice(1) }, company).current_position).toBeNull();
  });
});
