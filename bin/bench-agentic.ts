/**
 * `npx tsx bin/bench-agentic.ts [--people 100000] [--only 1,3]`: agentic search on the local stack over
 * HTTP, all on loopback, against a generated directory of `--people` people and the sample web generated
 * from it, for ten realistic personas (docs/agentic-research.md). Per persona: wall time from POST to
 * `completed`, steps, leads, the rungs of the broadening ladder used (candidates and leads of each),
 * credits charged, pages fetched (every request the sample web served for the job, robots.txt included)
 * per delivered lead, the share of delivered leads whose every proof point is backed by an evidence item
 * (a directory fact, or a page this job fetched), and the leads with at least one piece of page evidence.
 * Beside them, a physical reference: sequential raw GETs of sample-web pages on the same loopback, so a
 * run's time can be read against `page requests × one raw page`. Prints one JSON line last (read by
 * bin/bench.ts) and writes bench-results/agentic.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLocalStack } from '../shared/local/stack.js';
import { writeDirectoryFile } from '../shared/directory/file.js';
import { peopleIndex, resetPeopleIndex } from '../shared/search-engine/index-source.js';
import { getJob } from '../shared/jobs/jobs.repository.js';
import type { AgenticJob } from '../shared/agentic/model.js';
import { publicApiClient } from '../shared/contract/client.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' }, only: { type: 'string' } } });
const people = Number(values.people);
const log = (m: string) => console.error(m);

/** Ten personas a sales team would research, each with a required fact to prove on a page (docs/agentic-research.md). */
const PERSONAS = [
  { query: 'VP of Sales at B2B SaaS companies in Germany, must have led a team of 10+, exclude agencies', target_results: 10, max_credits: 500 },
  { query: 'HR managers in Sydney who led a team of 5 or more', target_results: 10, max_credits: 500 },
  { query: 'CTOs of fintech startups in London that are hiring', target_results: 10, max_credits: 500 },
  { query: 'Finance directors in Toronto at companies that raised funding', target_results: 10, max_credits: 500 },
  { query: 'Heads of marketing in Paris at companies that use HubSpot', target_results: 10, max_credits: 500 },
  { query: 'Data scientists at fintech companies who spoke at a conference', target_results: 10, max_credits: 500 },
  { query: 'Engineering managers in San Francisco with a team of 8+. Ideally they use Kubernetes.', target_results: 10, max_credits: 500 },
  { query: 'VP of Engineering at software companies that raised a Series B in the last year and are hiring data engineers. Ideally they use Snowflake or spoke at a conference.', target_results: 10, max_credits: 500 },
  { query: 'Heads of sales in London at companies hiring account executives. Bonus if they wrote an article.', target_results: 20, max_credits: 500 },
  { query: 'Software engineers in Amsterdam at companies that use Python. Ideally they spoke at a conference.', target_results: 50, max_credits: 1000 },
];
const only = values.only ? new Set(values.only.split(',').map(Number)) : null;
const QUERIES = PERSONAS.filter((_, i) => !only || only.has(i + 1));

const dir = mkdtempSync(join(tmpdir(), 'bench-agentic-'));
const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', throttleMultiplier: 100_000, visibilityTimeoutSeconds: 60 });
const out: Record<string, unknown> = { people, at: new Date().toISOString() };
try {
  const file = join(dir, 'directory.jsonl');
  let t = performance.now();
  await writeDirectoryFile(file, { people, seed: 42 });
  process.env.DIRECTORY_FILE = file;
  resetPeopleIndex();
  await peopleIndex();
  log(`directory of ${people} people generated and indexed in ${Math.round(performance.now() - t)} ms`);

  const admin = { 'x-admin-token': 'bench', 'content-type': 'application/json' };
  const account = (await (await fetch(`${stack.consoleUrl}accounts/`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench', credits: 1_000_000, agentic_search: true }) })).json()) as { id: string };
  const key = ((await (await fetch(`${stack.consoleUrl}accounts/${account.id}/api-keys/`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
  await fetch(`${stack.consoleUrl}accounts/${account.id}/webhook-secrets/`, { method: 'POST', headers: admin });
  const api = publicApiClient(new URL(stack.baseUrl).origin, key);

  // The sample web reads the directory on its first request; warm it so the first query is not charged for it.
  t = performance.now();
  await fetch(`http://127.0.0.1:${stack.sampleWeb.port}/.well-known/hosts`);
  out.sample_web_load_ms = Math.round(performance.now() - t);

  // Physical reference: sequential raw GETs of sample-web pages over the same loopback (one company's team pages).
  const hosts = (await (await fetch(`http://127.0.0.1:${stack.sampleWeb.port}/.well-known/hosts`)).json()) as string[];
  const REF_PAGES = 200;
  t = performance.now();
  for (let i = 0; i < REF_PAGES; i++) await (await fetch(`http://127.0.0.1:${stack.sampleWeb.port}/news/`, { headers: { host: hosts[i % hosts.length]! } })).text();
  out.reference = { raw_page_get_ms: Number(((performance.now() - t) / REF_PAGES).toFixed(2)), pages: REF_PAGES };
  stack.sampleWeb.served.length = 0;
  log(`physical reference: ${JSON.stringify(out.reference)}`);

  const runs = [];
  for (const q of QUERIES) {
    const servedBefore = stack.sampleWeb.served.length;
    t = performance.now();
    const accepted = (await api.POST('/api/public/v1/agentic-search/', { body: { ...q, webhook_url: 'http://127.0.0.1:9/hook' } })).data!;
    let poll: any;
    for (;;) {
      poll = (await api.GET('/api/public/v1/agentic-search/{job_id}/', { params: { path: { job_id: accepted.id } } })).data;
      if (poll.status !== 'pending' && poll.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallMs = performance.now() - t;
    const job = (await getJob(accepted.id)) as AgenticJob;
    const fetched = new Set(stack.sampleWeb.served.slice(servedBefore));
    const requests = stack.sampleWeb.served.length - servedBefore;
    const leads = (poll.result?.results ?? []) as { proof_points: string[]; evidence: { headline?: string; url?: string }[] }[];
    const backed = leads.filter((l) => l.proof_points.every((_, i) => l.evidence[i] && (l.evidence[i]!.headline === 'Directory profile' || (l.evidence[i]!.url !== undefined && fetched.has(l.evidence[i]!.url!))))).length;
    const charge = ((await (await fetch(`${stack.consoleUrl}accounts/${account.id}/charges/`, { headers: admin })).json()) as { results: any[] }).results.find((c) => c.reference === accepted.id);
    const run = {
      query: q.query,
      status: poll.status,
      completion_reason: poll.result?.completion_reason ?? null,
      wall_ms: Math.round(wallMs),
      steps: job.checkpoint.step,
      candidates_evaluated: (job.checkpoint.rungs ?? []).reduce((n, r) => n + r.evaluated, 0),
      leads: leads.length,
      tiers: Object.fromEntries(['perfect', 'strong', 'good'].map((tier) => [tier, leads.filter((l: any) => l.tier === tier).length])),
      charged: charge?.charged ?? null,
      pages_fetched: fetched.size,
      page_requests: requests,
      page_requests_per_lead: leads.length ? Number((requests / leads.length).toFixed(2)) : null,
      proof_backed_share: leads.length ? Number((backed / leads.length).toFixed(3)) : null,
      leads_with_page_evidence: leads.filter((l) => l.evidence.some((e) => e.url !== undefined && fetched.has(e.url))).length,
      rungs: ((poll.result?.broadening ?? []) as { rung: string; relaxes: string; candidates: number; evaluated: number; leads: number }[]).map((b) => ({ rung: b.rung, relaxes: b.relaxes, candidates: b.candidates, evaluated: b.evaluated, leads: b.leads })),
      reference_ms: Math.round(requests * (out.reference as { raw_page_get_ms: number }).raw_page_get_ms),
    };
    log(JSON.stringify(run));
    runs.push(run);
  }
  out.runs = runs;
  const delivered = runs.reduce((n, r) => n + r.leads, 0);
  out.summary = {
    wall_ms_total: runs.reduce((n, r) => n + r.wall_ms, 0),
    leads: delivered,
    page_requests_per_lead: Number((runs.reduce((n, r) => n + r.page_requests, 0) / Math.max(1, delivered)).toFixed(2)),
    proof_backed_share: Number((runs.reduce((n, r) => n + (r.proof_backed_share ?? 0) * r.leads, 0) / Math.max(1, delivered)).toFixed(3)),
  };
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results/agentic.json'), JSON.stringify(out, null, 2));
console.log(JSON.stringify(out));
