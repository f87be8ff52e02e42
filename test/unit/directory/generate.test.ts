import { isValidPhoneNumber, parsePhoneNumber } from 'libphonenumber-js/max';
import { generateDirectory } from '../../../shared/directory/generate.js';
import { TITLES_BY_FUNCTION } from '../../../shared/directory/taxonomy.js';
import { DirectoryRecordSchema, type Company, type DirectoryRecord, type Person } from '../../../shared/directory/types.js';

const sample = (seed: number, people: number) => [...generateDirectory({ seed, people })];

describe('generateDirectory', () => {
  const records: DirectoryRecord[] = sample(42, 2000);
  const companies = records.filter((r): r is Company => r.type === 'company');
  const people = records.filter((r): r is Person => r.type === 'person');
  const companyById = new Map(companies.map((c) => [c.id, c]));

  it('is deterministic for a seed and differs across seeds', () => {
    const a = sample(7, 300);
    const b = sample(7, 300);
    const c = sample(8, 300);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(c));
    // Different seeds should not merely shuffle: the people themselves differ.
    const urls = (rs: DirectoryRecord[]) => new Set(rs.flatMap((r) => (r.type === 'person' ? [r.professional_url] : [])));
    const overlap = [...urls(a)].filter((u) => urls(c).has(u));
    expect(overlap.length).toBe(0);
  });

  it('emits about one company per 25 people, all before the people', () => {
    expect(people).toHaveLength(2000);
    expect(companies).toHaveLength(80);
    const firstPerson = records.findIndex((r) => r.type === 'person');
    expect(records.slice(firstPerson).every((r) => r.type === 'person')).toBe(true);
  });

  it('produces only schema-valid records', () => {
    for (const r of records) {
      const parsed = DirectoryRecordSchema.safeParse(r);
      if (!parsed.success) throw new Error(`${JSON.stringify(r).slice(0, 200)}: ${parsed.error.message}`);
    }
  });

  it('links every person to a generated company and uses its domain for email', () => {
    for (const p of people) {
      const c = companyById.get(p.company_id);
      expect(c).toBeDefined();
      if (p.work_email) expect(p.work_email.endsWith(`@${c!.domain}`)).toBe(true);
      expect(p.experience[0]!.company_id).toBe(p.company_id);
    }
  });

  it('gives valid E.164 phones for the person’s country to about 40%, emails to about 85%', () => {
    const withPhone = people.filter((p) => p.phone !== null);
    const withEmail = people.filter((p) => p.work_email !== null);
    expect(withPhone.length / people.length).toBeGreaterThan(0.33);
    expect(withPhone.length / people.length).toBeLessThan(0.47);
    expect(withEmail.length / people.length).toBeGreaterThan(0.8);
    expect(withEmail.length / people.length).toBeLessThan(0.9);
    for (const p of withPhone) {
      expect(isValidPhoneNumber(p.phone!)).toBe(true);
      const parsed = parsePhoneNumber(p.phone!);
      expect(parsed.number).toBe(p.phone);
      expect(parsed.country).toBe(p.location.country_code);
    }
  });

  it('keeps profile slugs, emails, ids and company domains unique', () => {
    const unique = <T>(xs: T[]) => new Set(xs).size === xs.length;
    expect(unique(people.map((p) => p.professional_url))).toBe(true);
    expect(unique(people.flatMap((p) => (p.work_email ? [p.work_email] : [])))).toBe(true);
    expect(unique(records.map((r) => r.id))).toBe(true);
    expect(unique(companies.map((c) => c.domain))).toBe(true);
    expect(unique(companies.map((c) => c.professional_url))).toBe(true);
    for (const p of people) expect(p.professional_url).toMatch(/^linkedin\.com\/in\/[a-z0-9-]+-[0-9a-f]{6}$/);
  });

  it('builds plausible careers: one open current role, earlier roles end before it starts', () => {
    for (const p of people) {
      const [current, ...past] = p.experience;
      expect(current!.end).toBeNull();
      expect(current!.title).toBe(p.current_job_title);
      expect(current!.start <= '2025-06').toBe(true);
      let after = current!.start;
      for (const x of past) {
        expect(x.end).not.toBeNull();
        expect(x.start <= x.end!).toBe(true);
        expect(x.end! < after).toBe(true);
        after = x.start;
      }
      for (const e of p.education) {
        expect(e.start < e.end).toBe(true);
        expect(e.end < current!.start).toBe(true);
      }
      expect(TITLES_BY_FUNCTION[p.function as keyof typeof TITLES_BY_FUNCTION][p.seniority as 'entry']).toContain(p.current_job_title);
    }
    const pastCounts = people.filter((p) => p.seniority !== 'intern' && p.seniority !== 'entry').map((p) => p.experience.length - 1);
    expect(Math.min(...pastCounts)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...pastCounts)).toBeLessThanOrEqual(5);
  });

  it('spreads companies over a long-tailed size range and many industries and countries', () => {
    const big = sample(3, 20_000).filter((r): r is Company => r.type === 'company');
    const sizes = big.map((c) => c.employee_count);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(200_000);
    expect(sizes.filter((s) => s <= 200).length / sizes.length).toBeGreaterThan(0.3);
    expect(sizes.filter((s) => s > 10_000).length).toBeGreaterThan(10);
    expect(new Set(big.map((c) => c.industry)).size).toBeGreaterThanOrEqual(30);
    expect(new Set(big.map((c) => c.hq.country_code)).size).toBeGreaterThanOrEqual(20);
  });

  it('uses real places with consistent country names and time zones', () => {
    const us = people.filter((p) => p.location.country_code === 'US');
    expect(us.length).toBeGreaterThan(300);
    for (const p of us) {
      expect(p.location.country).toBe('United States');
      expect(p.location.time_zone).toMatch(/^(America|Pacific)\//);
    }
    const de = people.find((p) => p.location.country_code === 'DE');
    expect(de?.location.time_zone).toBe('Europe/Berlin');
  });

  describe('shaped like real companies', () => {
    const shaped = sample(11, 20_000);
    const cos = shaped.filter((r): r is Company => r.type === 'company');
    const staff = new Map<string, Person[]>();
    for (const r of shaped) if (r.type === 'person') staff.set(r.company_id, [...(staff.get(r.company_id) ?? []), r]);
    const titlesAt = (c: Company) => (staff.get(c.id) ?? []).map((p) => p.current_job_title);
    const share = (industry: string, re: RegExp) => {
      const ps = cos.filter((c) => c.industry === industry).flatMap(titlesAt);
      return ps.filter((t) => re.test(t)).length / ps.length;
    };

    it('gives every company of 50 or more employees a CEO, a CFO and heads of its main functions', () => {
      const big = cos.filter((c) => c.employee_count >= 50);
      expect(big.length).toBeGreaterThan(400);
      for (const c of big) {
        const ts = titlesAt(c);
        expect([c.name, ts.some((t) => /CEO|Chief Executive Officer/.test(t))]).toEqual([c.name, true]);
        expect([c.name, ts.includes('Chief Financial Officer')]).toEqual([c.name, true]);
        const heads = (staff.get(c.id) ?? []).filter((p) => p.function !== 'finance' && p.function !== 'executive' && ['director', 'vp', 'c_level'].includes(p.seniority));
        expect([c.name, heads.length >= 2]).toEqual([c.name, true]);
      }
    });

    it('grows people per company with headcount', () => {
      const mean = (lo: number, hi: number) => {
        const cs = cos.filter((c) => c.employee_count >= lo && c.employee_count <= hi);
        return cs.reduce((a, c) => a + (staff.get(c.id)?.length ?? 0), 0) / cs.length;
      };
      const means = [mean(1, 49), mean(50, 999), mean(1000, 9999), mean(10_000, 1e9)];
      // Small companies hold about half their headcount at most (generate.ts COVERAGE_CAP), plus their founders.
      const small = cos.filter((c) => c.employee_count <= 49);
      const headcount = small.reduce((a, c) => a + c.employee_count, 0);
      const profiles = small.reduce((a, c) => a + (staff.get(c.id)?.length ?? 0), 0);
      expect(profiles / headcount).toBeGreaterThan(0.2);
      expect(profiles / headcount).toBeLessThan(0.65);
      for (let k = 1; k < means.length; k++) expect(means[k]!).toBeGreaterThan(means[k - 1]!);
      for (const c of cos) expect(staff.get(c.id)?.length ?? 0).toBeLessThanOrEqual(Math.max(c.employee_count, 6));
    });

    it('fits roles to the industry', () => {
      expect(share('Hospital & Health Care', /Nurse|Physician|Surgeon|Pharmacist|Medical|Clinical/)).toBeGreaterThan(0.35);
      expect(share('Education Management', /Teacher|Principal|Counselor|Teaching|Professor|Lecturer|Dean|Provost|Superintendent|Instructional|Department Head|Admissions/)).toBeGreaterThan(0.3);
      expect(share('Law Practice', /Attorney|Counsel|Paralegal/)).toBeGreaterThan(0.2);
      expect(share('Industrial Automation', /Plant|Quality|Production|Manufacturing|Machine|Maintenance|Process Engineer/)).toBeGreaterThan(0.25);
      expect(share('Construction', /Electrician|Plumber|Carpenter|HVAC|Welder|Foreman|Site Manager|Construction|Estimator|Equipment/)).toBeGreaterThan(0.3);
      expect(share('Computer Software', /Nurse|Teacher|Electrician|Plant Manager/)).toBe(0);
    });
  });
});
