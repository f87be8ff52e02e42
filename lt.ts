import { generateDirectory } from './shared/directory/generate.js';
import type { DirectoryRecord, Company, Person } from './shared/directory/types.js';
import { PeopleIndex } from './shared/search/search-engine.js';
import { ladderOf } from './shared/agentic/ladder.js';
import { rungShortlist } from './shared/agentic/research-step.js';
import { parseCriteria } from './shared/agentic/criteria.js';
import { evaluateCandidate } from './shared/agentic/evaluate.js';
import { renderSitePage, personSlug } from './shared/local/sample-web.js';
const people = Number(process.argv[2] ?? 3000), seed = Number(process.argv[3] ?? 7);
const records: DirectoryRecord[] = [...generateDirectory({ seed, people })];
const index = PeopleIndex.build(records);
const companies = new Map<string, Company>(); const staff = new Map<string, Map<string, any>>();
for (const r of records) if (r.type === 'company') { companies.set(r.domain, r); staff.set(r.domain, new Map()); }
const byId = new Map(records.filter((r): r is Company => r.type === 'company').map((c) => [c.id, c]));
for (const r of records) if (r.type === 'person') staff.get(byId.get(r.company_id)!.domain)!.set(personSlug(r), { full_name: r.full_name, title: r.current_job_title });
const today = new Date('2026-11-26');
const read = async (url: string) => { const u = new URL(url); const c = companies.get(u.host)!; const out = renderSitePage({ company: c, people: staff.get(u.host)! }, u.pathname, today); return out ? { ok: true as const, page: { url, status: 200, contentType: out.contentType, body: out.body } } : { ok: false as const, url, reason: 'http_error' as const, detail: '404' }; };
for (const q of process.argv.slice(4)) {
  const c = parseCriteria(q); const ladder = ladderOf(c.persona);
  const parts = [];
  for (let k = 0; k < ladder.length; k++) { const ids = await rungShortlist(index, ladder, k); let leads = 0; for (const e of await index.entries(ids)) { const v = await evaluateCandidate(e!.person, e!.company, c, read, today); if (v.qualifies) leads++; } parts.push(`${ladder[k]!.rung}:${ids.length}/${leads}`); }
  console.log(q.slice(0, 60), parts.join(' '));
}
