import fc from 'fast-check';
import { BLOCK_HEADLINE_MAX, BLOCK_TEXT_MAX, BLOCKS_MAX, PAGE_READ_MAX, assessCheck, blocksOf, evaluateCandidate, findProof, pageFor, type Block } from '../../../shared/understanding/evaluate.js';
import type { Criteria, EvidenceCheck } from '../../../shared/understanding/criteria.js';
import type { PageResult } from '../../../shared/ports/page-reader.js';
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { Company, Person } from '../../../shared/directory/types.js';
import { parseQuery } from '../../../shared/search-engine/query.js';

/**
 * Every evidence check reads a hostile page in linear time. Two patterns once rescanned the rest of a
 * sentence from every "open" or "joins" (`\bopen…\b[^.]*\boffice\b`, `joins\b[^.]*\bas`): a 200 KB page of
 * them took 6 s per check, 512 KB (the reader's cap) about 40 s. Each page below is 512 KB of one shape: a
 * run of one character, a near miss of each pattern, huge words, many separators, many small blocks.
 * Every check together reads one of them in a few dozen milliseconds; the bound is generous so a loaded CI
 * machine passes it, yet a quadratic check cannot.
 */
const KB512 = 512 * 1024;
const today = new Date('2026-11-23T00:00:00Z');
const fill = (unit: string) => unit.repeat(Math.ceil(KB512 / unit.length)).slice(0, KB512);
/** The same text as <article> blocks of about 60 KB, so the 64 KiB cut of a block hides none of it. */
const articles = (unit: string) => fill(`<article>${unit.repeat(Math.ceil(60_000 / unit.length))}</article>`);
const nearMissTool = `${'a-'.repeat(39)}b`;
/** CPU milliseconds `work` takes (this process's, so time spent waiting for one of CI's shared cores is not counted). */
async function cpuMs(work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const SHAPES: [string, string][] = [
  ['a run of one letter', fill('a')],
  ['a run of spaces', fill(' ')],
  ['a run of dots', fill('.')],
  ['a run of <', fill('<')],
  ['commas and spaces', fill(', ')],
  ['every separator', fill(',;:.- \t')],
  ['"open " (office)', fill('open ')],
  ['"open " in 60 KB blocks', articles('open ')],
  ['"opened a new " in 60 KB blocks', articles('opened a new ')],
  ['"open office." sentences in 60 KB blocks', articles('open x office. ')],
  ['"joins " (leadership)', fill('joins ')],
  ['"joins " in 60 KB blocks', articles('joins ')],
  ['"joins x as." in 60 KB blocks', articles('joins x. as ')],
  ['"appoint new ce " in 60 KB blocks', articles('appoint new ce ')],
  ['"leads a team of " (team)', articles('leads a team of ')],
  ['"leads " and long gaps', articles(`leads${' '.repeat(64)}`)],
  ['"hiring " (hiring)', articles('hiring ')],
  ['"no open x " (hiring)', articles('no open x ')],
  ['"raised " and "Series " (funding)', articles('raised Series ')],
  ['"a-" against a near-miss tool', articles('a-')],
  ['"Snowflak " (tech)', articles('Snowflak ')],
  ['"spoke launch wrote " (talk, launch, article)', articles('spokes launchs wrotes ')],
  ['one huge word', fill('x')],
  ['huge words in 60 KB blocks', articles('x')],
  ['a huge headline', fill(`<article><h2>${'hiring '.repeat(10_000)}</h2>we are hiring</article>`)],
  ['many small blocks', fill('<article><h2>we are hiring</h2>open office joins as</article>')],
  ['many dated blocks', fill('<article><time datetime="2026-01-01">x</time>raised launched spoke</article>')],
  ['unclosed tags', fill('<article><h1><time ')],
];

const CHECKS: EvidenceCheck[] = [
  { kind: 'funding', round: 'Series B', withinDays: 365 },
  { kind: 'funding', round: null, withinDays: null },
  { kind: 'hiring', role: 'data engineer' },
  { kind: 'hiring', role: '' },
  { kind: 'hiring', role: 'x '.repeat(40).trim() },
  { kind: 'tech', tool: 'Snowflake' },
  { kind: 'tech', tool: nearMissTool },
  { kind: 'talk', withinDays: 365 },
  { kind: 'article', withinDays: null },
  { kind: 'launch', withinDays: 90 },
  { kind: 'office', city: 'London', withinDays: null },
  { kind: 'office', city: null, withinDays: 365 },
  { kind: 'leadership', role: 'CEO', withinDays: null },
  { kind: 'leadership', role: null, withinDays: 365 },
  { kind: 'team', min: 10 },
  { kind: 'team', min: null },
];

describe('evidence checks on hostile pages', () => {
  test('every check reads 512 KB of each hostile shape in linear time', async () => {
    const slow: string[] = [];
    for (const [name, page] of SHAPES) {
      let blocks: Block[] = [];
      const ms = await cpuMs(() => {
        blocks = blocksOf(page);
        for (const check of CHECKS) assessCheck(check, blocks, today);
      });
      expect(blocks.length).toBeGreaterThanOrEqual(1);
      if (ms >= 500) slow.push(`${name}: ${Math.round(ms)} ms`);
    }
    expect(slow).toEqual([]);
  });

  test('what a check reads is bounded: 512 KiB of a page, 1,000 blocks, 64 KiB of text a block, 1,000 characters of headline', () => {
    expect(blocksOf('<article>x</article>'.repeat(BLOCKS_MAX + 500))).toHaveLength(BLOCKS_MAX);
    const [one] = blocksOf(`<h1>${'headline '.repeat(1000)}</h1>${'word '.repeat(40_000)}`);
    expect(one!.headline.length).toBeLessThanOrEqual(BLOCK_HEADLINE_MAX);
    expect(one!.text.length).toBeLessThanOrEqual(BLOCK_TEXT_MAX);
    // A fact past the first 512 KiB of the page is not read.
    const filler = `<article>${'filler '.repeat(8000)}</article>`;
    const late = `${filler.repeat(Math.ceil(PAGE_READ_MAX / filler.length))}<article>Acme opened an office in London.</article>`;
    expect(blocksOf(late).length).toBeLessThan(BLOCKS_MAX);
    expect(findProof({ kind: 'office', city: 'London', withinDays: null }, blocksOf(late), today)).toBeNull();
    expect(findProof({ kind: 'office', city: 'London', withinDays: null }, blocksOf(late.slice(-200)), today)).not.toBeNull();
  });

  test('a candidate with 16 checks over four 512 KB pages: each page cut into blocks once, all read well within the bound', async () => {
    const records = [...generateDirectory({ seed: 7, people: 50 })];
    const person = records.find((r): r is Person => r.type === 'person')!;
    const company = records.find((r): r is Company => r.type === 'company' && r.id === person.company_id)!;
    const bodies: Record<string, string> = { news: articles('open joins raised '), careers: articles('hiring no open x '), stack: articles('a-'), team: fill('leads a team of ') };
    const read = async (url: string): Promise<PageResult> => ({ ok: true, page: { url, status: 200, contentType: 'text/html', body: bodies[/\/(news|careers|stack|team)\//.exec(url)![1]!]! } });
    const persona = parseQuery(''); // (its first call loads the gazetteer: not timed)
    const halves = [CHECKS.slice(0, 8), CHECKS.slice(8)];
    const seen = halves.map(() => new Set<Block[]>());
    const judged: EvidenceCheck[][] = halves.map(() => []);
    // Two candidates' worth: eight priorities each (every priority is read, met or not).
    const ms = await cpuMs(async () => {
      for (const [i, half] of halves.entries()) {
        const criteria: Criteria = { persona, required: [], priorities: half.map((check) => ({ text: check.kind, check })) };
        const verdict = await evaluateCandidate(person, company, criteria, read, today, async (c, blocks, d) => {
          seen[i]!.add(blocks);
          judged[i]!.push(c);
          return findProof(c, blocks, d);
        });
        expect(verdict.qualifies).toBe(true);
      }
    });
    expect(ms).toBeLessThan(1000);
    for (const [i, half] of halves.entries()) {
      expect(judged[i]).toEqual(half);
      // One cut per page read, however many of its checks read it.
      expect(seen[i]!.size).toBe(new Set(half.map((c) => pageFor(c, company, person))).size);
      expect(seen[i]!.size).toBeLessThan(half.length);
    }
  });
});

describe('the one-pass checks decide as the patterns they replaced', () => {
  // The patterns as they were, run here only on short texts.
  const OFFICE = /\bopen(?:ed|s|ing)?\b[^.]*\boffice\b/i;
  const LEADERSHIP = /\b(?:appoint(?:s|ed)?|joins\b[^.]*\bas|leadership change|new (?:ceo|cto|cfo|coo))\b/i;
  const TEAM = /\b(?:leads?|led|leading|manages?|managed|managing|heads?|headed|runs?|ran|built and led|grew)\s+(?:a\s+|an\s+)?(?:team|org(?:ani[sz]ation)?|department|group)\s+of\s+(\d{1,5})\b/i;
  const tech = (tool: string) => new RegExp(`(?:^|[^\\w])${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:$|[^\\w])`, 'i');
  const word = fc.constantFrom('open', 'Opened', 'opens', 'opening', 'reopen', 'office', 'offices', 'Office', 'joins', 'as', 'has', 'was', 'appointed', 'new', 'CEO', 'leads', 'a', 'team', 'of', '12', 'dbt', 'C++', 'x', '.', ',', '-', 'é');
  const text = fc.array(fc.tuple(word, fc.constantFrom(' ', '', '. ', ', ', '-')), { maxLength: 30 }).map((parts) => parts.map(([w, sep]) => w + sep).join(''));
  const blockOf = (t: string): Block[] => [{ headline: '', date: null, text: t }];

  test('office, leadership, team and tech', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('dbt', 'C++', 'a', 'x.', 'office'), (t, tool) => {
        expect(findProof({ kind: 'office', city: null, withinDays: null }, blockOf(t), today) !== null).toBe(OFFICE.test(t));
        expect(findProof({ kind: 'leadership', role: null, withinDays: null }, blockOf(t), today) !== null).toBe(LEADERSHIP.test(t));
        expect(findProof({ kind: 'team', min: null }, blockOf(t), today) !== null).toBe(TEAM.test(t));
        expect(findProof({ kind: 'tech', tool }, blockOf(t), today) !== null).toBe(tech(tool).test(t));
      }),
      { numRuns: 2000, seed: 42 },
    );
  });
});
