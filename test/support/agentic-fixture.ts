import { generateDirectory } from '../../shared/directory/generate.js';
import { coveredCities } from '../../shared/directory/geo.js';
import type { Company, DirectoryRecord, Person } from '../../shared/directory/types.js';

const SALES: [string, Person['seniority']][] = [['VP of Sales', 'vp'], ['Head of Sales', 'director'], ['Sales Director', 'director'], ['Chief Revenue Officer', 'c_level'], ['Sales Manager', 'manager']];

/**
 * A small seeded fixture for issue 32's example ("VP of Sales at B2B SaaS companies in Germany, must have led
 * a team of 10+, exclude agencies"), to add to a generated test directory: the companies of 3 to 8 people of
 * a small generated directory (seed `seed`), made Berlin software companies staffed by a sales leadership
 * (VP of Sales, Head of Sales, Sales Director, CRO, Sales Manager in turn), and one more made a Berlin
 * agency with a VP of Sales (the exclusion). Ids, domains, profile URLs and emails get a `-de` mark so they
 * are new beside any other directory. People keep generated profile slugs (marked), so what their pages
 * say, the team they lead if any, is the sample web's own deterministic draw.
 */
export function germanSalesLeaders(seed: number, companies = 8): DirectoryRecord[] {
  const records = [...generateDirectory({ seed: 1000 + seed, people: 400 })];
  const staff = new Map<string, Person[]>();
  for (const r of records) if (r.type === 'person') staff.set(r.company_id, [...(staff.get(r.company_id) ?? []), r]);
  const berlin = coveredCities().find((c) => c.country_code === 'DE' && c.name === 'Berlin')!;
  const hq = { city: berlin.name, region: berlin.region!, country: berlin.country, country_code: 'DE', time_zone: berlin.time_zone };
  const chosen = records.filter((r): r is Company => r.type === 'company' && (staff.get(r.id)?.length ?? 0) >= 3 && staff.get(r.id)!.length <= 8).slice(0, companies + 1);
  const agency = chosen.at(-1)!;
  const out: DirectoryRecord[] = [];
  let n = 0;
  for (const c of chosen) {
    const domain = `de-${c.domain}`;
    out.push({ ...c, id: `${c.id}-de`, domain, professional_url: `${c.professional_url}-de`, industry: c === agency ? 'Marketing & Advertising' : 'Computer Software', hq });
    for (const p of staff.get(c.id)!) {
      const [title, seniority] = c === agency ? SALES[0]! : SALES[n++ % SALES.length]!;
      out.push({
        ...p,
        id: `${p.id}-de`,
        company_id: `${c.id}-de`,
        professional_url: `${p.professional_url}-de`,
        work_email: p.work_email && p.work_email.replace(/@.*$/, `@${domain}`),
        current_job_title: title,
        seniority,
        function: 'sales',
        location: hq,
      });
    }
  }
  return out;
}
