import type { Company, Person } from '../directory/types.js';
import { locationText } from '../directory/shape.js';
import { normalizeCompanyName } from '../directory/urls.js';
import { titleKeys, type ParsedQuery } from '../search-engine/query.js';
import type { AgenticSearchItem } from '../webhooks/events.js';
import { describeCheck, type Criteria, type EvidenceCheck } from './criteria.js';
import { textOfTokens, tokenize, type Token } from './html-scan.js';
import type { PageResult } from '../ports/page-reader.js';

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

/** Each `<article>` and the tokens up to its first `</article>`, in one pass; [] when there is none. */
function articlesOf(tokens: Token[]): { tokens: Token[]; start: number; end: number }[] {
  const isArticle = (t: Token, close: boolean) => t.kind === 'tag' && t.name === 'article' && t.close === close;
  const out: { tokens: Token[]; start: number; end: number }[] = [];
  let k = 0;
  while (k < tokens.length) {
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

/** A page as dated blocks: each `<article>` (headline, `<time datetime>` or the first ISO date), else the whole page. Linear in the page's length. */
export function blocksOf(html: string): Block[] {
  const all = tokenize(html);
  const articles = articlesOf(all);
  const parts = articles.length ? articles : [{ tokens: all, start: 0, end: html.length }];
  return parts.map(({ tokens, start, end }) => {
    const h = firstElement(tokens, isHeading) ?? firstElement(tokens, isTitle);
    let date: string | null = null;
    for (const t of tokens) {
      if (t.kind === 'tag' && !t.close && t.name === 'time') date = /datetime="(\d{4}-\d{2}-\d{2})/i.exec(t.attrs)?.[1] ?? null;
      if (date) break;
    }
    date ??= /\b(20\d{2}-\d{2}-\d{2})\b/.exec(html.slice(start, end))?.[1] ?? null;
    return { headline: h ? textOfTokens(h) : '', date, text: textOfTokens(tokens) };
  });
}

export function employeeCountRange(n: number): string {
  const bands: [number, string][] = [[10, '1-10'], [50, '11-50'], [200, '51-200'], [500, '201-500'], [1000, '501-1000'], [5000, '1001-5000'], [10000, '5001-10000']];
  return bands.find(([max]) => n <= max)?.[1] ?? '10001+';
}

const words = (s: string) => s.toLowerCase().split(/[^a-z0-9+#]+/).filter(Boolean).map((w) => (/(ss|us)$/.test(w) ? w : w.replace(/ies$/, 'y').replace(/s$/, '')));
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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

const LED_TEAM = /\b(?:leads?|led|leading|manages?|managed|managing|heads?|headed|runs?|ran|built and led|grew)\s+(?:a\s+|an\s+)?(?:team|org(?:ani[sz]ation)?|department|group)\s+of\s+(\d{1,5})\b/i;

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
      // A careers page lists every open position: none, or none for the role, is a "no".
      return against((b) => /\bno open (?:positions|roles|jobs)\b/i.test(b.text) || (check.role !== '' && /\bwe are hiring\b/i.test(b.text) && blocks.every((x) => !findProofBlock(check, [x], today))));
    case 'funding':
      return against((b) => /\b(?:bootstrapped|never raised|self-funded)\b/i.test(b.text));
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
  switch (check.kind) {
    case 'funding':
      return some((b) => !/\b(?:bootstrapped|never raised)\b/i.test(b.text) && /\b(?:raise[sd]?|funding|round)\b/i.test(b.text) && (!check.round || new RegExp(`\\b${escapeRe(check.round)}\\b`, 'i').test(b.text)) && withinDays(b, check.withinDays, today));
    case 'hiring': {
      const role = words(check.role);
      return some((b) => {
        const have = new Set(words(b.headline || b.text));
        return role.every((w) => have.has(w)) && /\b(?:hiring|join|apply|position|role|opening)\b/i.test(b.text) && !/\bno open (?:positions|roles|jobs)\b/i.test(b.text);
      });
    }
    case 'tech':
      return some((b) => new RegExp(`(?:^|[^\\w])${escapeRe(check.tool)}(?:$|[^\\w])`, 'i').test(b.text));
    case 'talk':
      return some((b) => /\b(?:spoke|talk|keynote|presented|panel)\b/i.test(b.text) && withinDays(b, check.withinDays, today));
    case 'article':
      return some((b) => /\b(?:wrote|published|article|op-ed)\b/i.test(b.text) && withinDays(b, check.withinDays, today));
    case 'launch':
      return some((b) => /\blaunch(?:ed|es|ing)?\b/i.test(b.text) && withinDays(b, check.withinDays, today));
    case 'office':
      return some((b) => /\bopen(?:ed|s|ing)?\b[^.]*\boffice\b/i.test(b.text) && (!check.city || b.text.toLowerCase().includes(check.city.toLowerCase())) && withinDays(b, check.withinDays, today));
    case 'leadership':
      return some((b) => /\b(?:appoint(?:s|ed)?|joins\b[^.]*\bas|leadership change|new (?:ceo|cto|cfo|coo))\b/i.test(b.text) && (!check.role || new RegExp(`\\b${escapeRe(check.role)}\\b`, 'i').test(b.text)) && withinDays(b, check.withinDays, today));
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
 * Evidence is a quotation, not the page: its description is cut to EVIDENCE_TEXT_MAX and its headline to
 * EVIDENCE_HEADLINE_MAX UTF-8 bytes (so also at most that many characters), so 50 leads with several
 * pieces of evidence each stay well inside DynamoDB's 400 KB item however large the pages were.
 */
export const EVIDENCE_TEXT_MAX = 1000;
export const EVIDENCE_HEADLINE_MAX = 200;
/** An evidence URL longer than this (after redirects) is left off: a URL cannot be clipped and still cite its page. */
export const EVIDENCE_URL_MAX = 256;
const ELLIPSIS = '…';
const utf8Bytes = (code: number) => (code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4);

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
  let cut = fits;
  const space = s.lastIndexOf(' ', cut);
  if (space > cut * 0.8) cut = space;
  return `${s.slice(0, cut).replace(/[\s,;:.-]+$/, '')}${ELLIPSIS}`;
}

/** The one place evidence is built: every headline and description clipped, an over-long URL left off. */
const evidenceOf = (headline: string, description: string, url?: string): Evidence => ({
  headline: clip(headline, EVIDENCE_HEADLINE_MAX),
  description: clip(description, EVIDENCE_TEXT_MAX),
  ...(url === undefined || Buffer.byteLength(url) > EVIDENCE_URL_MAX ? {} : { url }),
});

export interface Verdict {
  qualifies: boolean;
  item?: AgenticSearchItem;
}

export type ReadPage = (url: string) => Promise<PageResult>;

/** Which block of a page proves a check (the understanding port's judgement; the built-in patterns by default). */
export type JudgeEvidence = (check: EvidenceCheck, blocks: Block[], today: Date) => Promise<Block | null>;
const builtInJudge: JudgeEvidence = async (check, blocks, today) => findProof(check, blocks, today);

/**
 * Evaluate one candidate: required checks in order (stopping at the first unmet one, so a candidate that
 * fails early costs no further page), then every priority; the tier follows from the priorities met.
 */
export async function evaluateCandidate(person: Person, company: Company, criteria: Criteria, read: ReadPage, today: Date, judge: JudgeEvidence = builtInJudge): Promise<Verdict> {
  const proofs: string[] = [];
  const evidence: Evidence[] = [];
  const profile = `${person.current_job_title} at ${company.name} (${company.industry}, ${employeeCountRange(company.employee_count)} employees), ${locationText(person.location)}`;
  proofs.push(profile);
  evidence.push(evidenceOf('Directory profile', profile));

  const check = async (c: EvidenceCheck): Promise<{ proof: string; evidence: Evidence } | null> => {
    const url = pageFor(c, company, person);
    const got = await read(url);
    if (!got.ok) return null;
    const block = await judge(c, blocksOf(got.page.body), today);
    if (!block) return null;
    const dated = block.date ? ` (${block.date})` : '';
    const found = evidenceOf(block.headline || describeCheck(c), block.text, got.page.url);
    return { proof: `${describeCheck(c)}: ${found.headline}${dated}`, evidence: found };
  };

  for (const r of criteria.required) {
    const found = await check(r.check);
    if (!found) return { qualifies: false };
    proofs.push(found.proof);
    evidence.push(found.evidence);
  }
  let met = 0;
  const metTexts: string[] = [];
  for (const p of criteria.priorities) {
    if ('check' in p) {
      const found = await check(p.check);
      if (!found) continue;
      proofs.push(found.proof);
      evidence.push(found.evidence);
    } else if (matchesPersona(p.persona, person, company)) {
      const fact = `${p.text}: ${profile}`;
      proofs.push(fact);
      evidence.push(evidenceOf('Directory profile', fact));
    } else continue;
    met++;
    metTexts.push(p.text);
  }
  const n = criteria.priorities.length;
  const tier = met === n ? 'perfect' : met * 2 > n ? 'strong' : 'good';
  const fit = [
    `${person.full_name} is ${person.current_job_title} at ${company.name}`,
    criteria.required.length ? `meets every required criterion (${criteria.required.map((r) => describeCheck(r.check)).join('; ')})` : 'matches the persona',
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
      fit_summary: `${fit.join(', ')}.`,
      proof_points: proofs,
      evidence,
      tier,
    },
  };
}
