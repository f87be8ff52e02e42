/**
 * The sample directory's shape and speed (issue 32): generation rate, the shape measures of
 * test/unit/directory/shape-metrics.ts, and the leads the in-process people search engine returns
 * for the issue's five queries (and two more), and where people work by company size. Prints one
 * JSON object.
 *   tsx bin/bench-directory-shape.ts [--people 100000] [--seed 42] [--runs 3]
 */
import { parseArgs } from 'node:util';
import { generateDirectory } from '../shared/directory/generate.js';
import type { DirectoryRecord } from '../shared/directory/types.js';
import { PeopleIndex } from '../shared/search-engine/search-engine.js';
import { parseQuery } from '../shared/search-engine/query.js';
import { measureShape } from '../test/unit/directory/shape-metrics.js';

const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' }, seed: { type: 'string', default: '42' }, runs: { type: 'string', default: '3' } } });
const people = Number(values.people);
const seed = Number(values.seed);

export const ISSUE_QUERIES = [
  'HR managers in Sydney',
  'UX designers in Amsterdam',
  'finance directors in Toronto',
  'data scientists at fintech startups',
  'VP of Sales at software companies in Germany',
];
/** The issue's other thin answers: real London fintech startups have CTOs; French retailers have marketing leaders. */
export const ALSO_QUERIES = ['CTOs of fintech startups in London', 'marketing directors at retail companies in France'];

// Generation rate: best of --runs (the machine is shared; the best run is the least disturbed).
let records: DirectoryRecord[] = [];
const rates: number[] = [];
for (let run = 0; run < Number(values.runs); run++) {
  const t = performance.now();
  records = [...generateDirectory({ seed, people })];
  rates.push(Math.round(people / ((performance.now() - t) / 1000)));
}
const shape = measureShape(records);
const index = PeopleIndex.build(records);
const leads: Record<string, number> = {};
for (const q of [...ISSUE_QUERIES, ...ALSO_QUERIES]) leads[q] = (await index.search(parseQuery(q), { limit: Number.MAX_SAFE_INTEGER })).length;
// Where people work, by company size (generate.ts PEOPLE_BY_SIZE), in % of the people.
const sizeOf = new Map(records.flatMap((r) => (r.type === 'company' ? [[r.id, r.employee_count] as const] : [])));
const classes = [[1, 10], [11, 50], [51, 200], [201, 1000], [1001, 10_000], [10_001, Infinity]] as const;
const people_by_company_size: Record<string, number> = {};
for (const [lo, hi] of classes) {
  const n = records.filter((r) => r.type === 'person' && sizeOf.get(r.company_id)! >= lo && sizeOf.get(r.company_id)! <= hi).length;
  people_by_company_size[hi === Infinity ? `${lo}+` : `${lo}-${hi}`] = Math.round((n / people) * 1000) / 10;
}
console.log(JSON.stringify({ people, seed, people_per_s_best: Math.max(...rates), people_per_s_runs: rates, leads, people_by_company_size, shape }, null, 1));
