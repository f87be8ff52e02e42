import { EVIDENCE_HEADLINE_MAX, EVIDENCE_ITEMS_MAX, EVIDENCE_TEXT_MAX, EVIDENCE_URL_MAX, FIT_SUMMARY_MAX, LEAD_EVIDENCE_BUDGET, PROOF_POINT_MAX, clip, evaluateCandidate, fairShares } from '../../../shared/understanding/evaluate.js';
import { dynamoItemSize } from '../../support/dynamo-item-size.js';
import { saveStepUpdate } from '../../../shared/agentic/agentic.repository.js';
import { CHECK_NAME_MAX, CRITERIA_MAX, CRITERION_TEXT_MAX, parseCriteria, type Criteria, type EvidenceCheck } from '../../../shared/understanding/criteria.js';
import { RUNG_ADDED_MAX, type AgenticJob } from '../../../shared/agentic/model.js';
import type { PageResult } from '../../../shared/ports/page-reader.js';
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { Company, Person } from '../../../shared/directory/types.js';
import type { AgenticSearchItem } from '../../../shared/webhooks/events.js';
import { parseQuery } from '../../../shared/search-engine/query.js';

/**
 * Evidence quotes a page, it does not carry it: however large the pages a run reads and however many criteria
 * its query asks for, the leads it saves keep the job item (one DynamoDB item, 400 KB at most) far from the limit.
 */
const today = new Date('2026-11-23T00:00:00Z');
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

// The directory person with the longest record, so the rest of each lead is as large as it gets.
const records = [...generateDirectory({ seed: 7, people: 400 })];
const companies = new Map(records.flatMap((r) => (r.type === 'company' ? [[r.id, r as Company] as const] : [])));
const person = records.filter((r): r is Person => r.type === 'person').sort((a, b) => JSON.stringify(b).length - JSON.stringify(a).length)[0]!;
const company = companies.get(person.company_id)!;

// A 400 KB page every check is met on, in a 3-byte script so characters understate its size, its headline as long as the page.
const facts =
  'Acme raised a Series B funding round; we are hiring a data engineer and an analytics engineer, join us. Our stack: Snowflake, dbt, Python, Kubernetes. ' +
  'She spoke at a conference and wrote an article. Acme launched a product and opened an office in London. Acme appointed a new CEO. She leads a team of 40 engineers. ';
const filler = '数据平台融资招聘 ';
const huge = (n: number) => (facts + filler.repeat(Math.ceil(n / bytes(filler)))).slice(0, n);
const page = `<html><article><h2>${huge(100 * 1024)}</h2><time datetime="2026-03-02">2026-03-02</time><p>${huge(300 * 1024)}</p></article></html>`;
const read = async (url: string): Promise<PageResult> => ({ ok: true, page: { url, status: 200, contentType: 'text/html', body: page } });

// Three pieces of page evidence (two required, one priority) besides the directory profile.
const criteria: Criteria = {
  persona: parseQuery(''),
  required: [
    { text: 'raised a Series B', check: { kind: 'funding', round: 'Series B', withinDays: null } },
    { text: 'hiring data engineers', check: { kind: 'hiring', role: 'data engineer' } },
  ],
  priorities: [{ text: 'uses Snowflake', check: { kind: 'tech', tool: 'Snowflake' } }],
};

// The most a query can ask for: 8 required and 8 priorities, every one met, texts as long as a criterion may be.
const long = (s: string) => `${s} ${'x'.repeat(CRITERION_TEXT_MAX)}`.slice(0, CRITERION_TEXT_MAX);
const checks: EvidenceCheck[] = [
  { kind: 'funding', round: 'Series B', withinDays: null },
  { kind: 'hiring', role: 'data engineer' },
  { kind: 'tech', tool: 'Snowflake' },
  { kind: 'talk', withinDays: null },
  { kind: 'article', withinDays: null },
  { kind: 'launch', withinDays: null },
  { kind: 'office', city: 'London', withinDays: null },
  { kind: 'team', min: 10 },
  { kind: 'leadership', role: 'CEO', withinDays: null },
  { kind: 'tech', tool: 'dbt' },
  { kind: 'tech', tool: 'Python' },
  { kind: 'hiring', role: 'analytics engineer' },
  { kind: 'funding', round: null, withinDays: null },
  { kind: 'tech', tool: 'Kubernetes' },
  { kind: 'talk', withinDays: 365 },
  { kind: 'article', withinDays: 365 },
];
const maxed: Criteria = {
  persona: parseQuery(''),
  required: checks.slice(0, CRITERIA_MAX.required).map((check) => ({ text: long(check.kind), check })),
  priorities: checks.slice(CRITERIA_MAX.required).map((check) => ({ text: long(check.kind), check })),
};
// Every page URL as long as the lead's URL budget lets each of 16 be kept (longer ones are left off).
const urlBytes = Math.floor(LEAD_EVIDENCE_BUDGET.urls / (EVIDENCE_ITEMS_MAX - 1));
const readLongUrls = async (url: string): Promise<PageResult> => ({ ok: true, page: { url: `${url}?${'q'.repeat(urlBytes)}`.slice(0, urlBytes), status: 200, contentType: 'text/html', body: page } });

/** Bytes of every text of a lead's evidence and proof points. */
const evidenceBytes = (l: AgenticSearchItem) => ({
  descriptions: l.evidence!.reduce((n, e) => n + bytes(e.description ?? ''), 0),
  headlines: l.evidence!.reduce((n, e) => n + bytes(e.headline ?? ''), 0),
  proofPoints: l.proof_points!.reduce((n, p) => n + bytes(p), 0),
  urls: l.evidence!.reduce((n, e) => n + bytes(e.url ?? ''), 0),
});

/** The job item after a step saves `leads` (all in agentic_results), with every other attribute at its largest. */
function jobItemWith(leads: AgenticSearchItem[], saved: Criteria) {
  // Each found below the first rung, with the longest "how" the broadening adds to its summary.
  const how = ' Found outside the place asked for, by broadening to the same metro area.';
  const all: AgenticSearchItem[] = leads.map((lead) => ({ ...structuredClone(lead), fit_summary: `${lead.fit_summary}${how}`, found_by: 'same_metro' as const }));
  const shortlist = Array.from({ length: 400 }, (_, i) => `person-${String(i).padStart(8, '0')}-${'x'.repeat(24)}`);
  const job = {
    id: 'job_0123456789abcdef',
    account_id: 'acct_0123456789abcdef',
    key_id: 'key_0123456789abcdef',
    tier: 'agentic_search',
    status: 'running',
    created_at: today.toISOString(),
    updated_at: today.toISOString(),
    completed_at: null,
    leads_returned: 0,
    result: null,
    error: null,
    request: { query: 'q'.repeat(2000), target_results: 50, max_credits: 2000, webhook_url: `https://${'h'.repeat(2030)}.test/` },
    charge_id: 'charge_0123456789abcdef',
    deadline_at: today.toISOString(),
    checkpoint: { step: 1, cursor: 25, leads: 0, charged: 100, stop: null },
  } satisfies AgenticJob;
  process.env.JOBS_TABLE_NAME ??= 'jobs';
  // Every rung of the ladder looked at, each listing as many added names as it may, each as long as it may be.
  const rungs = (['exact', 'equivalent_title', 'adjacent_seniority', 'same_metro', 'region'] as const).map((rung) => ({ rung, relaxes: 'place' as const, added: Array.from({ length: RUNG_ADDED_MAX }, () => 'P'.repeat(80)), candidates: 400, evaluated: 400 }));
  const next = { step: 2, cursor: 400, leads: all.length, charged: 600, stop: null, rung: 4, rungs };
  const values = saveStepUpdate(job, 1, next, all, today, shortlist, saved).Update.ExpressionAttributeValues;
  // The item after the save: the job with the update's values in their attributes.
  const item = { ...job, checkpoint: values[':cp'], agentic_results: values[':new'], shortlist: values[':sl'], criteria: values[':cr'], leads_returned: values[':n'], updated_at: values[':now'], due_pk: values[':dpk'], due_at: values[':dat'] };
  // DynamoDB's own count (the marshalled JSON, with its type wrappers, would overstate it).
  return dynamoItemSize(item);
}

describe('evidence is bounded', () => {
  test('a 400 KB page gives a description and headline of at most their caps', async () => {
    expect(bytes(page)).toBeGreaterThan(400 * 1024);
    const v = await evaluateCandidate(person, company, criteria, read, today);
    expect(v.qualifies).toBe(true);
    const evidence = v.item!.evidence!;
    expect(evidence).toHaveLength(4);
    for (const e of evidence) {
      expect(e.description!.length).toBeLessThanOrEqual(EVIDENCE_TEXT_MAX);
      expect(bytes(e.description!)).toBeLessThanOrEqual(EVIDENCE_TEXT_MAX);
      expect(bytes(e.headline!)).toBeLessThanOrEqual(EVIDENCE_HEADLINE_MAX);
    }
    expect(evidence[1]!.description!.endsWith('…')).toBe(true);
    for (const p of v.item!.proof_points!) expect(bytes(p)).toBeLessThan(EVIDENCE_HEADLINE_MAX + 100);
  });

  test('a page whose final URL is longer than EVIDENCE_URL_MAX is quoted without its URL', async () => {
    const longUrl = `https://acme.example/news/${'n'.repeat(EVIDENCE_URL_MAX)}`;
    const redirected = async (url: string): Promise<PageResult> => ({ ok: true, page: { url: url.includes('/news') ? longUrl : url, status: 200, contentType: 'text/html', body: page } });
    const v = await evaluateCandidate(person, company, criteria, redirected, today);
    expect(v.qualifies).toBe(true);
    const urls = v.item!.evidence!.flatMap((e) => (e.url ? [e.url] : []));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(bytes(u)).toBeLessThanOrEqual(EVIDENCE_URL_MAX);
    expect(urls).not.toContain(longUrl);
  });

  test('a lead at the maxima (8 required and 8 priorities, all met on 400 KB pages) stays within its evidence budget', async () => {
    const lead = (await evaluateCandidate(person, company, maxed, readLongUrls, today)).item!;
    expect(lead.tier).toBe('perfect');
    expect(lead.evidence).toHaveLength(EVIDENCE_ITEMS_MAX);
    expect(lead.proof_points).toHaveLength(EVIDENCE_ITEMS_MAX);
    expect(lead.evidence!.filter((e) => e.url)).toHaveLength(EVIDENCE_ITEMS_MAX - 1);
    const used = evidenceBytes(lead);
    expect(used.descriptions).toBeLessThanOrEqual(LEAD_EVIDENCE_BUDGET.descriptions);
    expect(used.headlines).toBeLessThanOrEqual(LEAD_EVIDENCE_BUDGET.headlines);
    expect(used.proofPoints).toBeLessThanOrEqual(LEAD_EVIDENCE_BUDGET.proofPoints);
    expect(used.urls).toBeLessThanOrEqual(LEAD_EVIDENCE_BUDGET.urls);
    for (const p of lead.proof_points!) expect(bytes(p)).toBeLessThanOrEqual(PROOF_POINT_MAX);
    expect(bytes(lead.fit_summary!)).toBeLessThanOrEqual(FIT_SUMMARY_MAX);
    // Each piece still quotes its page: a sentence or two, not an ellipsis.
    for (const e of lead.evidence!.slice(1)) expect(bytes(e.description!)).toBeGreaterThan(80);
    // The whole lead as DynamoDB counts it: 5,182 B when written (a query of 286 clauses once made one of 443,386 B).
    expect(dynamoItemSize(lead as unknown as Record<string, unknown>)).toBeLessThan(5.5 * 1024);
  });

  test('criteria over the caps are evaluated up to the caps', async () => {
    const over: Criteria = { ...maxed, required: [...maxed.required, ...maxed.required], priorities: [...maxed.priorities, ...maxed.priorities] };
    const lead = (await evaluateCandidate(person, company, over, read, today)).item!;
    expect(lead.evidence).toHaveLength(EVIDENCE_ITEMS_MAX);
  });

  test('50 leads at the maxima, with the largest criteria a query gives, keep the job item under 330 KB', async () => {
    const lead = (await evaluateCandidate(person, company, maxed, readLongUrls, today)).item!;
    // Saved criteria: the persona of a 2,000-character query of places and the priorities of one of long
    // persona clauses (each the largest found), with the 8 longest checks: more than one query can give.
    const places = parseCriteria('VP of Sales in London, Paris, Berlin, Madrid, Rome, Sydney, Toronto, '.repeat(30).slice(0, 2000));
    const clauses = parseCriteria(`Ideally they are ${'fintech software healthcare London Paris Berlin '.repeat(6)}. `.repeat(10).slice(0, 2000));
    const name = 'n'.repeat(CHECK_NAME_MAX);
    const saved: Criteria = {
      persona: places.persona,
      required: Array.from({ length: CRITERIA_MAX.required }, () => ({ text: 'r'.repeat(CRITERION_TEXT_MAX), check: { kind: 'hiring', role: name } })),
      priorities: clauses.priorities,
    };
    const size = jobItemWith(Array.from({ length: 50 }, () => lead), saved);
    // 325,996 B when written: 80% of DynamoDB's 409,600, where 50 leads with 17 pieces each quoted as before would need 1.3 MB.
    expect(size).toBeLessThan(330 * 1024);
  });

  test('clip cuts at a word boundary, adds an ellipsis, and leaves short text alone', () => {
    expect(clip('short text', 20)).toBe('short text');
    expect(clip('alpha beta gamma delta epsilon', 22)).toBe('alpha beta gamma…');
    expect(bytes(clip('数'.repeat(1000), 100))).toBeLessThanOrEqual(100);
    expect(clip('😀'.repeat(100), 10)).toBe('😀…');
    expect(clip('x'.repeat(5000), 1000).length).toBeGreaterThan(990);
    expect(bytes(clip('x'.repeat(5000), 1000))).toBeLessThanOrEqual(1000);
    expect(clip('one, two; three. ,;:.- four', 20)).toBe('one, two; three…');
    expect(clip('abc', 2)).toBe('');
  });

  test('fair shares give each what it wants up to an equal part of what is left, never more than the budget', () => {
    expect(fairShares([100, 100], 1000)).toEqual([100, 100]);
    expect(fairShares([1000, 50, 1000], 1000)).toEqual([475, 50, 475]);
    expect(fairShares([], 1000)).toEqual([]);
    const wants = Array.from({ length: 17 }, (_, i) => (i * 137) % 1000);
    expect(fairShares(wants, 2000).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2000);
  });
});
