import { marshall } from '@aws-sdk/util-dynamodb';
import { EVIDENCE_HEADLINE_MAX, EVIDENCE_TEXT_MAX, EVIDENCE_URL_MAX, clip, evaluateCandidate } from '../../../shared/understanding/evaluate.js';
import { dynamoItemSize } from '../../support/dynamo-item-size.js';
import { saveStepUpdate } from '../../../shared/agentic/agentic.repository.js';
import type { Criteria } from '../../../shared/understanding/criteria.js';
import { RUNG_ADDED_MAX, type AgenticJob } from '../../../shared/agentic/model.js';
import type { PageResult } from '../../../shared/ports/page-reader.js';
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { Company, Person } from '../../../shared/directory/types.js';
import type { AgenticSearchItem } from '../../../shared/webhooks/events.js';
import { parseQuery } from '../../../shared/search-engine/query.js';

/**
 * Evidence quotes a page, it does not carry it: however large the pages a run reads, the leads it saves
 * keep the job item (one DynamoDB item, 400 KB at most) far from the limit.
 */
const today = new Date('2026-11-23T00:00:00Z');
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

// The directory person with the longest record, so the rest of each lead is as large as it gets.
const records = [...generateDirectory({ seed: 7, people: 400 })];
const companies = new Map(records.flatMap((r) => (r.type === 'company' ? [[r.id, r as Company] as const] : [])));
const person = records.filter((r): r is Person => r.type === 'person').sort((a, b) => JSON.stringify(b).length - JSON.stringify(a).length)[0]!;
const company = companies.get(person.company_id)!;

// A 400 KB page every check is met on, in a 3-byte script so characters understate its size, its headline as long as the page.
const words = 'Acme raises funding round Series B, hiring a data engineer, join us, Snowflake 数据平台融资招聘 ';
const huge = (n: number) => words.repeat(Math.ceil(n / bytes(words))).slice(0, n);
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
    const long = `https://acme.example/news/${'n'.repeat(EVIDENCE_URL_MAX)}`;
    const redirected = async (url: string): Promise<PageResult> => ({ ok: true, page: { url: url.includes('/news') ? long : url, status: 200, contentType: 'text/html', body: page } });
    const v = await evaluateCandidate(person, company, criteria, redirected, today);
    expect(v.qualifies).toBe(true);
    const urls = v.item!.evidence!.flatMap((e) => (e.url ? [e.url] : []));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(bytes(u)).toBeLessThanOrEqual(EVIDENCE_URL_MAX);
    expect(urls).not.toContain(long);
  });

  test('50 such leads keep the job item, as the step save writes it, under 350 KB', async () => {
    const lead = (await evaluateCandidate(person, company, criteria, read, today)).item!;
    // Each found below the first rung, with the longest "how" the broadening adds to its summary.
    const how = ' Found outside the place asked for, by broadening to the same metro area.';
    const leads: AgenticSearchItem[] = Array.from({ length: 50 }, () => ({ ...structuredClone(lead), fit_summary: `${lead.fit_summary}${how}`, found_by: 'same_metro' as const }));
    const shortlist = Array.from({ length: 400 }, (_, i) => `person-${String(i).padStart(8, '0')}-${'x'.repeat(24)}`);
    // Every evidence URL at the longest evidence may carry.
    for (const l of leads) for (const e of l.evidence!) if (e.url) e.url = `${e.url}?${'q'.repeat(EVIDENCE_URL_MAX)}`.slice(0, EVIDENCE_URL_MAX);
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
    const next = { step: 2, cursor: 400, leads: 50, charged: 600, stop: null, rung: 4, rungs };
    const values = saveStepUpdate(job, 1, next, leads, today, shortlist).Update.ExpressionAttributeValues;
    // The item after the save: the job with the update's values in their attributes (all 50 leads in agentic_results).
    const item = { ...job, checkpoint: values[':cp'], agentic_results: values[':new'], shortlist: values[':sl'], leads_returned: values[':n'], updated_at: values[':now'], due_pk: values[':dpk'], due_at: values[':dat'] };
    // DynamoDB's own count (the marshalled JSON, with its type wrappers, would overstate it).
    const size = dynamoItemSize(item);
    console.log(`job item with 50 leads: ${size} bytes as DynamoDB counts them (${bytes(JSON.stringify(marshall(item, { removeUndefinedValues: true })))} bytes of marshalled JSON)`);
    expect(size).toBeLessThan(350 * 1024);
  });

  test('clip cuts at a word boundary, adds an ellipsis, and leaves short text alone', () => {
    expect(clip('short text', 20)).toBe('short text');
    expect(clip('alpha beta gamma delta epsilon', 22)).toBe('alpha beta gamma…');
    expect(bytes(clip('数'.repeat(1000), 100))).toBeLessThanOrEqual(100);
    expect(clip('😀'.repeat(100), 10)).toBe('😀…');
    expect(clip('x'.repeat(5000), 1000).length).toBeGreaterThan(990);
    expect(bytes(clip('x'.repeat(5000), 1000))).toBeLessThanOrEqual(1000);
  });
});
