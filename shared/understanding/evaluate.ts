import type { Company, Person } from '../directory/types.js';
import { locationText } from '../directory/shape.js';
import { normalizeCompanyName } from '../directory/urls.js';
import { titleKeys, type ParsedQuery } from '../search-engine/query.js';
import type { AgenticSearchItem } from '../webhooks/events.js';
import { capCriteria, CRITERIA_MAX, describeCheck, type Criteria, type EvidenceCheck } from './criteria.js';
import { textOfTokens, tokenize, type Token } from './html-scan.js';
import type { Page, PageResult } from '../ports/page-reader.js';

/**
 * The built-in evaluator: one candidate against every criterion. Persona facts come from the directory;
 * every evidence check is decided on pages the reader fetched during this job (a page that could not be
 * read — robots.txt, an error, a refusal — leaves its check unmet: nothing is claimed that was not read).
 * Each satisfied criterion gives one proof point and the evidence item that backs it, at the same index.
 */
export interface Block {
  headline: string;
  date: string | null;
  text: string;
}

const isHeading = (t: Token) => t.kind === 'tag' && (t.name === 'h1' || t.name === 'h2' || t.name === 'h3');
const isTitle = (t: Token) => t.kind === 'tag' && t.name === 'title';
const isClose = (t: Token | undefined) => t?.kind === 'tag' && t.close;

/**
 * The tokens of the first element matched by `is` that has a closing tag after it, up to the first such
 * closing tag (as `<x>([\s\S]*?)</x>` would match), or null. One pass over `tokens`.
 */
function firstElement(tokens: Token[], is: (t: Token) => boolean): Token[] | null {
  let lastClose = -1;
  for (let k = tokens.length - 1; k >= 0 && lastClose < 0; k--) if (is(tokens[k]!) && isClose(tokens[k])) lastClose = k;
  for (let k = 0; k < lastClose; k++) {
    const t = tokens[k]!;
    if (is(t) && !isClose(t)) {
      let j = k + 1;
      while (!(is(tokens[j]!) && isClose(tokens[j]))) j++;
      return tokens.slice(k + 1, j);
    }
  }
  return null;
}

/** Each `<article>` (the first `max`) and the tokens up to its first `</article>`, in one pass; [] when there is none. */
function articlesOf(tokens: Token[], max: number): { tokens: Token[]; start: number; end: number }[] {
  const isArticle = (t: Token, close: boolean) => t.kind === 'tag' && t.name === 'article' && t.close === close;
  const out: { tokens: Token[]; start: number; end: number }[] = [];
  let k = 0;
  while (k < tokens.length && out.length < max) {
    if (!isArticle(tokens[k]!, false)) {
      k++;
      continue;
    }
    let j = k + 1;
    while (j < tokens.length && !isArticle(tokens[j]!, true)) j++;
    if (j === tokens.length) break; // no closing tag after this one, so none after any later one either
    out.push({ tokens: tokens.slice(k + 1, j), start: tokens[k]!.end, end: tokens[j]!.start });
    k = j + 1;
  }
  return out;
}

/**
 * How much of a page the checks read. Every check is a single pass over its text (no pattern in this file
 * rescans text it has passed), so its cost is linear in what it reads, and what it reads is bounded:
 * - PAGE_READ_MAX: only the first 512 KiB of a page's HTML is cut into blocks (the HTTP reader's own cap,
 *   so the bound holds whatever reader supplied the page);
 * - BLOCK_TEXT_MAX: each block's text is its first 64 KiB characters (an `<article>`, or the whole page when it
 *   has none), so no one pattern ever runs over more than that;
 * - BLOCK_HEADLINE_MAX: a headline is its first 1,000 characters;
 * - BLOCKS_MAX: a page is its first 1,000 `<article>`s (what a check pays per block stays bounded on a page
 *   of 8,000 tiny ones).
 * A check therefore reads at most 512 Ki characters of a page in all, and a page is cut into blocks once per
 * candidate (once per step when the reader hands candidates the same page), whatever the number of checks
 * that read it (evaluateCandidate).
 */
export const PAGE_READ_MAX = 512 * 1024;
export const BLOCK_TEXT_MAX = 64 * 1024;
export const BLOCK_HEADLINE_MAX = 1000;
export const BLOCKS_MAX = 1000;

/** `s` within `max` UTF-16 units, never ending on half a surrogate pair. */
function cutChars(s: string, max: number): string {
  if (s.length <= max) return s;
  const c = s.charCodeAt(max - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** A page as dated blocks: each `<article>` (headline, `<time datetime>` or the first ISO date), else the whole page. Linear in the page's length. */
export function blocksOf(html: string): Block[] {
  if (html.length > PAGE_READ_MAX) html = html.slice(0, PAGE_READ_MAX);
  const all = tokenize(html);
  const articles = articlesOf(all, BLOCKS_MAX);
  const parts = articles.length ? articles : [{ tokens: all, start: 0, end: html.length }];
  return parts.map(({ tokens, start, end }) => {
    const h = firstElement(tokens, isHeading) ?? firstElement(tokens, isTitle);
    let date: string | null = null;
    for (const t of tokens) {
      if (t.kind === 'tag' && !t.close && t.name === 'time') date = /datetime="(\d{4}-\d{2}-\d{2})/i.exec(t.attrs)?.[1] ?? null;
      if (date) break;
    }
    date ??= /\b(20\d{2}-\d{2}-\d{2})\b/.exec(html.slice(start, end))?.[1] ?? null;
    return { headline: h ? cutChars(textOfTokens(h), BLOCK_HEADLINE_MAX) : '', date, text: cutChars(textOfTokens(tokens), BLOCK_TEXT_MAX) };
  });
}

export function employeeCountRange(n: number): string {
  const bands: [number, string][] = [[10, '1-10'], [50, '11-50'], [200, '51-200'], [500, '201-500'], [1000, '501-1000'], [5000, '1001-5000'], [10000, '5001-10000']];
  return bands.find(([max]) => n <= max)?.[1] ?? '10001+';
}

const singular = (w: string) => (w.endsWith('ss') || w.endsWith('us') ? w : w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.endsWith('s') ? w.slice(0, -1) : w);
const words = (s: string) => s.toLowerCase().split(/[^a-z0-9+#]+/).filter(Boolean).map(singular);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the checks derive from a block's text, computed once per block however many checks read it. */
const derived = new WeakMap<Block, { lower?: string; words?: Set<string> }>();
const derivedOf = (b: Block) => {
  let d = derived.get(b);
  if (!d) derived.set(b, (d = {}));
  return d;
};
const lowerOf = (b: Block) => (derivedOf(b).lower ??= b.text.toLowerCase());
/** The words of a block's headline, or of its text when it has none (what a hiring check compares a role with). */
const wordsOf = (b: Block) => (derivedOf(b).words ??= new Set(words(b.headline || b.text)));

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * Whether `term` occurs in the block's text between non-word characters (or the ends), ignoring case: what
 * `(?:^|[^\w])term(?:$|[^\w])` with the `i` flag asks, by `indexOf` on the lowercased text (the term is at
 * most CHECK_NAME_MAX characters, so each occurrence costs a bounded compare).
 */
function hasTerm(block: Block, term: string): boolean {
  const t = term.toLowerCase();
  if (!t) return false;
  const text = lowerOf(block);
  for (let at = text.indexOf(t); at !== -1; at = text.indexOf(t, at + 1)) {
    const end = at + t.length;
    if ((at === 0 || !isWordChar(text.charCodeAt(at - 1))) && (end === text.length || !isWordChar(text.charCodeAt(end)))) return true;
  }
  return false;
}

/**
 * Whether a word matched by `re`'s group 1 is followed, before the next '.', by a word matched without it:
 * what `\bfirst\b[^.]*\bthen\b` asks. That pattern rescans the rest of the sentence from every `first`, so a
 * 200 KB page of "open open open …" took seconds; here one left-to-right pass (`re` is global and matches
 * either word) pairs each `then` with the latest `first`, and each stretch of text is searched for a '.'
 * at most once.
 */
function followedInSentence(text: string, re: RegExp): boolean {
  re.lastIndex = 0;
  let first = -1; // where the latest `first` word ends, or -1
  let dot = -1; // the first '.' at or after `first` (Infinity: none)
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[1] !== undefined) {
      first = m.index + m[0].length;
      continue;
    }
    if (first < 0) continue;
    if (dot < first) {
      const d = text.indexOf('.', first);
      dot = d === -1 ? Infinity : d;
    }
    if (dot > m.index) return true;
    first = -1; // that sentence ended before this word; an earlier `first` is further away still
  }
  return false;
}

/** "open(s/ed/ing)" then "office" in one sentence; "joins" then "as" in one sentence. */
const OPEN_THEN_OFFICE = /\b(?:(open(?:ed|s|ing)?)|office)\b/gi;
const JOINS_THEN_AS = /\b(?:(joins)|as)\b/gi;

/** Whether the block's own date is within `days` of today (any block when there is no window). */
export function withinDays(block: Block, days: number | null, today: Date): boolean {
  if (days === null) return true;
  if (!block.date) return false;
  const age = (today.getTime() - new Date(`${block.date}T00:00:00Z`).getTime()) / 86_400_000;
  return age >= 0 && age <= days;
}

/** Which page of a candidate a check reads. */
export function pageFor(check: EvidenceCheck, company: Company, person: Person): string {
  const site = `https://${company.domain}`;
  switch (check.kind) {
    case 'hiring':
      return `${site}/careers/`;
    case 'tech':
      return `${site}/stack/`;
    case 'talk':
    case 'article':
    case 'team':
      return `${site}/team/${person.professional_url.slice(person.professional_url.lastIndexOf('/') + 1)}/`;
    default:
      return `${site}/news/`;
  }
}

/**
 * What a page says about a check: `proven` with the block that states it, `disproven` with the block that
 * states the contrary (a smaller team led, no open position or none for the role,
 * a company that says it never raised, a stack page without the tool), or `unknown` when the page says
 * neither. Only text of the page counts; silence is never a disproof.
 */
export type Assessment = { verdict: 'proven'; block: Block } | { verdict: 'disproven'; block: Block } | { verdict: 'unknown' };

// Block text has its whitespace collapsed, so the bounded gaps (`\s{1,8}`) change nothing and keep every
// attempt of the pattern to a few dozen characters.
const LED_TEAM = /\b(?:leads?|led|leading|manages?|managed|managing|heads?|headed|runs?|ran|built and led|grew)\s{1,8}(?:a\s{1,8}|an\s{1,8})?(?:team|org(?:ani[sz]ation)?|department|group)\s{1,8}of\s{1,8}(\d{1,5})\b/i;
const NO_OPENINGS = /\bno open (?:positions|roles|jobs)\b/i;
const NEVER_RAISED = /\b(?:bootstrapped|never raised|self-funded)\b/i;

export function assessCheck(check: EvidenceCheck, blocks: Block[], today: Date): Assessment {
  const proven = findProofBlock(check, blocks, today);
  if (proven) return { verdict: 'proven', block: proven };
  const against = (test: (b: Block) => boolean): Assessment => {
    const b = blocks.find(test);
    return b ? { verdict: 'disproven', block: b } : { verdict: 'unknown' };
  };
  switch (check.kind) {
    case 'team':
      return against((b) => {
        const led = LED_TEAM.exec(b.text);
        // Working in a team says nothing about leading one: unknown, not disproven.
        return led !== null && check.min !== null && Number(led[1]) < check.min;
      });
    case 'hiring':
      // A careers page lists every open position: none, or none for the role, is a "no" (no block proved the role, above).
      return against((b) => NO_OPENINGS.test(b.text) || (check.role !== '' && /\bwe are hiring\b/i.test(b.text)));
    case 'funding':
      return against((b) => NEVER_RAISED.test(b.text));
    case 'tech':
      // The company's own stack page lists what it builds and runs on.
      return against((b) => /\btools we build and run\b/i.test(b.text));
    default:
      return { verdict: 'unknown' };
  }
}

/** The block of a page that satisfies a check, if any. */
export function findProof(check: EvidenceCheck, blocks: Block[], today: Date): Block | null {
  return findProofBlock(check, blocks, today);
}

function findProofBlock(check: EvidenceCheck, blocks: Block[], today: Date): Block | null {
  const some = (test: (b: Block) => boolean) => blocks.find(test) ?? null;
  // Each pattern is built once per check, not once per block.
  switch (check.kind) {
    case 'funding': {
      const round = check.round ? new RegExp(`\\b${escapeRe(check.round)}\\b`, 'i') : null;
      return some((b) => !/\b(?:bootstrapped|never raised)\b/i.test(b.text) && /\b(?:raise[sd]?|funding|round)\b/i.test(b.text) && (!round || round.test(b.text)) && withinDays(b, check.withinDays, today));
    }
    case 'hiring': {
      const role = words(check.role);
      // The patterns first: the block's words are collected only for a block that could prove it.
      return some((b) => /\b(?:hiring|join|apply|position|role|opening)\b/i.test(b.text) && !NO_OPENINGS.test(b.text) && (role.length === 0 || role.every((w) => wordsOf(b).has(w))));
    }
    case 'tech':
      return some((b) => hasTerm(b, check.tool));
    case 'talk':
      return some((b) => /\b(?:spoke|talk|keynote|presented|panel)\b/i.test(b.text) && withinDays(b, check.withinDays, today));
    case 'article':
      return some((b) => /\b(?:wrote|published|article|op-ed)\b/i.test(b.text) && withinDays(b, check.withinDays, today));
    case 'launch':
      return some((b) => /\blaunch(?:ed|es|ing)?\b/i.test(b.text) && withinDays(b, check.withinDays, today));
    case 'office': {
      const city = check.city?.toLowerCase();
      return some((b) => followedInSentence(b.text, OPEN_THEN_OFFICE) && (!city || lowerOf(b).includes(city)) && withinDays(b, check.withinDays, today));
    }
    case 'leadership': {
      const role = check.role ? new RegExp(`\\b${escapeRe(check.role)}\\b`, 'i') : null;
      return some((b) => (/\b(?:appoint(?:s|ed)?|leadership change|new (?:ceo|cto|cfo|coo))\b/i.test(b.text) || followedInSentence(b.text, JOINS_THEN_AS)) && (!role || role.test(b.text)) && withinDays(b, check.withinDays, today));
    }
    case 'team':
      return some((b) => {
        const led = LED_TEAM.exec(b.text);
        return led !== null && (check.min === null || Number(led[1]) >= check.min);
      });
  }
}

/** Whether a person matches every trait a persona names (the priorities that are not evidence checks). */
export function matchesPersona(q: ParsedQuery, person: Person, company: Company): boolean {
  const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
  if (q.titles.length && !titleKeys(person.current_job_title).some((k) => q.titles.includes(k))) return false;
  if (q.functions.length && !lower(q.functions).includes(person.function.toLowerCase())) return false;
  if (q.seniorities.length && !lower(q.seniorities).includes(person.seniority.toLowerCase())) return false;
  if (q.industries.length && !q.industries.includes(company.industry)) return false;
  if (q.companies.length && !q.companies.includes(normalizeCompanyName(company.name))) return false;
  if (q.companySize && ((q.companySize.min !== undefined && company.employee_count < q.companySize.min) || (q.companySize.max !== undefined && company.employee_count > q.companySize.max))) return false;
  const l = person.location;
  if (q.locations.length && !q.locations.some((p) => p.country === l.country_code && (!p.region || p.region === l.region) && (!p.city || p.city === l.city))) return false;
  const text = `${person.current_job_title} ${person.headline} ${person.skills.join(' ')}`.toLowerCase();
  return q.keywords.every((k) => text.includes(k.toLowerCase()));
}

type Evidence = NonNullable<AgenticSearchItem['evidence']>[number];

/**
 * Evidence is a quotation, not the page: each description is cut to at most EVIDENCE_TEXT_MAX and each
 * headline to EVIDENCE_HEADLINE_MAX UTF-8 bytes (so also at most that many characters), however large the
 * pages were.
 */
export const EVIDENCE_TEXT_MAX = 1000;
export const EVIDENCE_HEADLINE_MAX = 200;
/** An evidence URL longer than this (after redirects) is left off: a URL cannot be clipped and still cite its page. */
export const EVIDENCE_URL_MAX = 256;
/** A proof point (what was proven and the headline that proves it) in UTF-8 bytes. */
export const PROOF_POINT_MAX = 300;
/** A lead's fit summary in UTF-8 bytes (the run may add the one sentence of how it was found). */
export const FIT_SUMMARY_MAX = 400;
/** Pieces of evidence a lead carries at most: its directory profile and one per criterion met. */
export const EVIDENCE_ITEMS_MAX = 1 + CRITERIA_MAX.required + CRITERIA_MAX.priorities;

/**
 * What one lead's evidence may take in all, in UTF-8 bytes, whatever the number of pieces: the job keeps up to 50
 * leads in its one DynamoDB item (400 KB), so the lead's share cannot grow with the criteria. Each budget is
 * shared fairly among the lead's pieces (a short one keeps all it has, the longer ones split the rest; none
 * above its own cap above), so a lead with three pieces quotes as much as each cap allows and one with 17
 * quotes a sentence or two of each. A URL that does not fit its share is left off, as an over-long one is.
 * In all at most 3,600 bytes of evidence and proof points a lead (4,000 with its fit summary).
 */
export const LEAD_EVIDENCE_BUDGET = { descriptions: 1600, headlines: 400, proofPoints: 800, urls: 800 } as const;

const ELLIPSIS = '…';
const utf8Bytes = (code: number) => (code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4);
const TRAILING = /[\s,;:.-]/;

/** `s` within `max` UTF-8 bytes: unchanged if it fits, else cut (at a word boundary near the end where there is one) with an ellipsis. */
export function clip(s: string, max: number): string {
  let bytes = 0;
  let end = 0;
  const budget = max - utf8Bytes(ELLIPSIS.codePointAt(0)!);
  let fits = -1;
  for (const ch of s) {
    bytes += utf8Bytes(ch.codePointAt(0)!);
    if (fits < 0 && bytes > budget) fits = end;
    if (bytes > max) break;
    end += ch.length;
  }
  if (bytes <= max) return s;
  if (budget < 0) return '';
  let cut = Math.max(fits, 0);
  const space = s.lastIndexOf(' ', cut);
  if (space > cut * 0.8) cut = space;
  // Trailing separators off, scanning back once (a pattern such as /[\s,;:.-]+$/ retries every run of them).
  while (cut > 0 && TRAILING.test(s[cut - 1]!)) cut--;
  return `${s.slice(0, cut)}${ELLIPSIS}`;
}

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Max-min fair shares of `budget` for pieces that want `wants` bytes: in order of what they want, each gets
 * it, up to an equal share of what is left; the shares never add up to more than the budget.
 */
export function fairShares(wants: number[], budget: number): number[] {
  const shares = new Array<number>(wants.length).fill(0);
  let left = budget;
  const order = wants.map((_, i) => i).sort((a, b) => wants[a]! - wants[b]! || a - b);
  order.forEach((i, k) => {
    const share = Math.min(wants[i]!, Math.floor(left / (order.length - k)));
    shares[i] = share;
    left -= share;
  });
  return shares;
}

/** A piece of evidence as found: the proof point is written once its headline is clipped. */
interface Found {
  headline: string;
  description: string;
  url?: string;
  proof: (headline: string) => string;
}

/** The one place evidence is built: every text clipped to its cap and its share of the lead's budget, a URL that does not fit left off. */
function finishEvidence(found: Found[]): { proofs: string[]; evidence: Evidence[] } {
  const clipAll = (texts: string[], cap: number, budget: number) => {
    const shares = fairShares(texts.map((t) => Math.min(byteLength(t), cap)), budget);
    return texts.map((t, i) => clip(t, shares[i]!));
  };
  const headlines = clipAll(found.map((f) => f.headline), EVIDENCE_HEADLINE_MAX, LEAD_EVIDENCE_BUDGET.headlines);
  const proofs = clipAll(found.map((f, i) => f.proof(headlines[i]!)), PROOF_POINT_MAX, LEAD_EVIDENCE_BUDGET.proofPoints);
  const descriptions = clipAll(found.map((f) => f.description), EVIDENCE_TEXT_MAX, LEAD_EVIDENCE_BUDGET.descriptions);
  // A URL is kept whole or left off: the shortest first, each while it fits an equal share of what is left.
  const urls = found.map((f) => (f.url === undefined ? Infinity : byteLength(f.url)));
  const keep = new Set<number>();
  let left = LEAD_EVIDENCE_BUDGET.urls;
  const wanting = urls.map((_, i) => i).filter((i) => urls[i]! <= EVIDENCE_URL_MAX).sort((a, b) => urls[a]! - urls[b]! || a - b);
  wanting.forEach((i, k) => {
    if (urls[i]! > Math.floor(left / (wanting.length - k))) return;
    keep.add(i);
    left -= urls[i]!;
  });
  const evidence = found.map((f, i): Evidence => ({ headline: headlines[i]!, description: descriptions[i]!, ...(keep.has(i) ? { url: f.url! } : {}) }));
  return { proofs, evidence };
}

export interface Verdict {
  qualifies: boolean;
  item?: AgenticSearchItem;
}

export type ReadPage = (url: string) => Promise<PageResult>;

/** Which block of a page proves a check (the understanding port's judgement; the built-in patterns by default). */
export type JudgeEvidence = (check: EvidenceCheck, blocks: Block[], today: Date) => Promise<Block | null>;
const builtInJudge: JudgeEvidence = async (check, blocks, today) => findProof(check, blocks, today);

/**
 * Pages already cut into blocks, by the page object: a step's reader hands every candidate it evaluates the
 * same object for the same URL, so a company's page is cut once for all its candidates in the step (and
 * forgotten with the page).
 */
const cutPages = new WeakMap<Page, Block[]>();

/**
 * Evaluate one candidate: required checks in order (stopping at the first unmet one, so a candidate that
 * fails early costs no further page), then every priority; the tier follows from the priorities met.
 * At most CRITERIA_MAX of each are evaluated, whatever criteria were saved. Each page is cut into blocks
 * once for the candidate, however many checks read it.
 */
export async function evaluateCandidate(person: Person, company: Company, criteria: Criteria, read: ReadPage, today: Date, judge: JudgeEvidence = builtInJudge): Promise<Verdict> {
  const { required, priorities } = capCriteria(criteria);
  const found: Found[] = [];
  const profile = `${person.current_job_title} at ${company.name} (${company.industry}, ${employeeCountRange(company.employee_count)} employees), ${locationText(person.location)}`;
  found.push({ headline: 'Directory profile', description: profile, proof: () => profile });

  const byUrl = new Map<string, { body: string; blocks: Block[] }>();
  const blocksOfPage = (url: string, page: Page) => {
    let blocks = cutPages.get(page);
    if (!blocks) {
      const seen = byUrl.get(url);
      blocks = seen && seen.body === page.body ? seen.blocks : blocksOf(page.body);
      cutPages.set(page, blocks);
      byUrl.set(url, { body: page.body, blocks });
    }
    return blocks;
  };
  const check = async (c: EvidenceCheck): Promise<Found | null> => {
    const url = pageFor(c, company, person);
    const got = await read(url);
    if (!got.ok) return null;
    const block = await judge(c, blocksOfPage(url, got.page), today);
    if (!block) return null;
    const dated = block.date ? ` (${block.date})` : '';
    return { headline: block.headline || describeCheck(c), description: block.text, url: got.page.url, proof: (headline) => `${describeCheck(c)}: ${headline}${dated}` };
  };

  for (const r of required) {
    const got = await check(r.check);
    if (!got) return { qualifies: false };
    found.push(got);
  }
  let met = 0;
  const metTexts: string[] = [];
  for (const p of priorities) {
    if ('check' in p) {
      const got = await check(p.check);
      if (!got) continue;
      found.push(got);
    } else if (matchesPersona(p.persona, person, company)) {
      const fact = `${p.text}: ${profile}`;
      found.push({ headline: 'Directory profile', description: fact, proof: () => fact });
    } else continue;
    met++;
    metTexts.push(p.text);
  }
  const { proofs, evidence } = finishEvidence(found);
  const n = priorities.length;
  const tier = met === n ? 'perfect' : met * 2 > n ? 'strong' : 'good';
  const fit = [
    `${person.full_name} is ${person.current_job_title} at ${company.name}`,
    required.length ? `meets every required criterion (${required.map((r) => describeCheck(r.check)).join('; ')})` : 'matches the persona',
    n ? `and ${met} of ${n} priorities${metTexts.length ? ` (${metTexts.join('; ')})` : ''}` : '',
  ].filter(Boolean);
  return {
    qualifies: true,
    item: {
      full_name: person.full_name,
      current_job_title: person.current_job_title,
      headline: person.headline,
      location: locationText(person.location),
      professional_url: `https://${person.professional_url}`,
      company: { name: company.name, domain: company.domain, industry: company.industry, employee_count_range: employeeCountRange(company.employee_count) },
      experience: person.experience.map((x) => ({ company: x.company_name, title: x.title, date_range: `${x.start} - ${x.end ?? 'present'}` })),
      fit_summary: clip(`${fit.join(', ')}.`, FIT_SUMMARY_MAX),
      proof_points: proofs,
      evidence,
      tier,
    },
  };
}
