/**
 * Search benchmark: generates a directory, builds the index, runs varied queries, prints JSON.
 *   tsx bin/bench-search.ts [--people 100000] [--seed 42] [--queries 200]
 */
import { parseArgs } from 'node:util';
import { generateDirectory, mulberry32 } from '../shared/directory/generate.js';
import type { DirectoryRecord } from '../shared/directory/types.js';
import { PeopleIndex } from '../shared/search/search-engine.js';
import { parseQuery } from '../shared/search/query.js';

const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '42' },
    queries: { type: 'string', default: '200' },
  },
});

const ROLES = ['CTOs', 'VP of Sales', 'heads of marketing', 'software engineers', 'senior software engineers', 'data scientists', 'founders', 'executives', 'product managers', 'recruiters', 'engineering managers', 'account executives', 'designers', 'CFOs', 'director-level people', 'sales leaders', 'marketing directors', 'interns', 'customer success managers', 'lawyers', 'people in IT', 'engineers', ''];
const PLACES = ['in Berlin', 'in NYC', 'in the Bay Area', 'in the UK', 'in Germany', 'in India', 'in Texas', 'in London', 'based in Toronto', 'in Brazil', 'in Sydney', 'in California', 'in Europe', '', '', ''];
const FIRMOGRAPHICS = ['at fintech startups', 'at SaaS companies', 'in healthtech', 'at enterprise companies', 'at companies with 50-200 employees', 'at companies with over 1000 employees', 'in ecommerce', 'at banks', 'at mid-size companies', '', '', ''];
const EXTRAS = ['python', 'kubernetes', 'salesforce', 'not at Google', 'excluding agencies', 'no recruiters', 'figma', 'with b2b saas experience', '', '', '', ''];

const rnd = mulberry32(Number(values.seed) + 1);
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
const queries: string[] = [];
while (queries.length < Number(values.queries)) {
  const q = [pick(ROLES), pick(FIRMOGRAPHICS), pick(PLACES), pick(EXTRAS)].filter(Boolean).join(' ').trim();
  if (q) queries.push(q);
}

let t = performance.now();
const records: DirectoryRecord[] = [...generateDirectory({ seed: Number(values.seed), people: Number(values.people) })];
const generateMs = Math.round(performance.now() - t);
const index = PeopleIndex.build(records);
parseQuery('warm up the gazetteer');

const times: number[] = [];
let zero = 0;
let total = 0;
for (let round = 0; round < 2; round++) {
  for (const q of queries) {
    t = performance.now();
    const hits = index.search(parseQuery(q), { limit: 100 });
    const ms = performance.now() - t;
    if (round === 1) {
      // second round only: the first warms the JIT, as a long-lived worker would be
      times.push(ms);
      total += hits.length;
      if (!hits.length) zero++;
    }
  }
}
times.sort((a, b) => a - b);
const pct = (p: number) => Number(times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2));
console.log(
  JSON.stringify(
    {
      people: index.size,
      generate_ms: generateMs,
      build_ms: index.buildMs,
      queries: times.length,
      search_ms: { p50: pct(0.5), p95: pct(0.95), max: pct(1) },
      avg_results: Math.round(total / times.length),
      zero_result_queries: zero,
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    },
    null,
    2,
  ),
);
