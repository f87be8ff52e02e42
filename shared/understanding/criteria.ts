import { isEmptyQuery, parseQuery, type ParsedQuery } from '../search-engine/query.js';

/**
 * The built-in criteria engine: an agentic query → the persona to shortlist (required, checked against the
 * directory), the evidence checks each lead must pass on pages (required), the priorities that rank the
 * leads that qualify (each an evidence check or a persona trait), and the exclusions (the persona parser's
 * negations: "not at Acme", "no recruiters"). Deterministic: sentences and clauses are classified by
 * patterns, so the same query always yields the same criteria, and `describe` says what was understood.
 *
 *   "VP of Engineering at fintech companies that raised a Series B in the last year and are hiring data
 *    engineers. Ideally they use Snowflake or spoke at a conference."
 *   → persona {titles: [VP of Engineering], industries: [Financial Services]},
 *     required [funding(Series B, 365 days), hiring(data engineer)], priorities [tech(Snowflake), talk].
 */
export type EvidenceCheck =
  | { kind: 'funding'; round: string | null; withinDays: number | null }
  | { kind: 'hiring'; role: string }
  | { kind: 'tech'; tool: string }
  | { kind: 'talk'; withinDays: number | null }
  | { kind: 'article'; withinDays: number | null }
  | { kind: 'launch'; withinDays: number | null }
  | { kind: 'office'; city: string | null; withinDays: number | null }
  | { kind: 'leadership'; role: string | null; withinDays: number | null }
  /** The person led a team of at least `min` people (any stated team when null), as their own page says. */
  | { kind: 'team'; min: number | null };

export type Priority = { text: string; check: EvidenceCheck } | { text: string; persona: ParsedQuery };

export interface Criteria {
  persona: ParsedQuery;
  required: { text: string; check: EvidenceCheck }[];
  priorities: Priority[];
}

/**
 * How much of a query becomes work: at most 8 required checks and 8 priorities, the first ones in the query's
 * order (a query is plain language, so more are kept silently rather than refused). Each criterion costs page
 * reads and a piece of evidence in every lead, and leads are saved in the job's one DynamoDB item (400 KB),
 * so the number a query can ask for must not grow with its length: a 2,000-character query of 286 short
 * clauses once asked for 286 checks. Both parsers are held to them (the language model's tool schema says 8
 * too), and so is the evaluator, whatever criteria it is handed.
 */
export const CRITERIA_MAX = { required: 8, priorities: 8 } as const;
/** A criterion's text (what the lead's fit summary quotes) in characters, as the language model's schema allows. */
export const CRITERION_TEXT_MAX = 300;
/** A check's named role, tool or city in characters (the model's schema: 80; a round: 40). */
export const CHECK_NAME_MAX = 80;

/** `s` cut to `max` characters, at the last space when there is one in its second half (never mid-surrogate). */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  const space = s.lastIndexOf(' ', end);
  return s.slice(0, space > end / 2 ? space : end).trimEnd();
}

function capCheck(c: EvidenceCheck): EvidenceCheck {
  switch (c.kind) {
    case 'hiring':
      return c.role.length > CHECK_NAME_MAX ? { ...c, role: cut(c.role, CHECK_NAME_MAX) } : c;
    case 'tech':
      return c.tool.length > CHECK_NAME_MAX ? { ...c, tool: cut(c.tool, CHECK_NAME_MAX) } : c;
    case 'office':
      return c.city && c.city.length > CHECK_NAME_MAX ? { ...c, city: cut(c.city, CHECK_NAME_MAX) } : c;
    case 'funding':
      return c.round && c.round.length > 40 ? { ...c, round: cut(c.round, 40) } : c;
    case 'leadership':
      return c.role && c.role.length > CHECK_NAME_MAX ? { ...c, role: cut(c.role, CHECK_NAME_MAX) } : c;
    default:
      return c;
  }
}

/** The criteria within CRITERIA_MAX (the first ones kept), each text and named value within its cap. Idempotent. */
export function capCriteria(c: Criteria): Criteria {
  const text = (t: string) => cut(t, CRITERION_TEXT_MAX);
  return {
    persona: c.persona,
    required: c.required.slice(0, CRITERIA_MAX.required).map((r) => ({ text: text(r.text), check: capCheck(r.check) })),
    priorities: c.priorities.slice(0, CRITERIA_MAX.priorities).map((p): Priority => ('check' in p ? { text: text(p.text), check: capCheck(p.check) } : { text: text(p.text), persona: p.persona })),
  };
}

const PRIORITY_LEAD = /^\s*(?:ideally|preferably|prefer(?:ably)?|bonus(?: points)?(?: if)?|nice to have|a plus(?: if)?|extra points(?: if)?|even better(?: if)?|it helps if)\b[:,]?\s*/i;
const CONNECTIVES = /^(?:and|or|that|who|which|whose|where|they|them|their|are|is|was|were|has|have|had|must|should|ideally|currently|recently|actively|also|already|been|be|the company|companies|company)\b\s*/i;

/** "led a team of 10+", "managed a team of at least 12", "manages 10+ people", "a team of more than 10", "10+ direct reports". */
const TEAM = /\b(?:(?:led|leads?|leading|managed|manages?|managing|heads?|headed|heading|runs?|ran|running|built|builds?|grew|grown)\s+(?:a\s+|an\s+)?(?:teams?|org(?:ani[sz]ation)?s?|departments?|groups?)\b(?:\s+of)?|teams?\s+of|team\s+size\s+of|(?:led|leads?|managed|manages?|managing)\b(?=\s+(?:over\s+|more\s+than\s+|at\s+least\s+)?\d))\s*(?:(at\s+least|over|more\s+than|min(?:imum)?(?:\s+of)?)\s+)?(\d{1,5})?\s*(\+|or\s+more|plus)?(?:\s+(?:people|engineers|reps|sellers|staff|employees|(?:direct\s+)?reports))?/i;
const REPORTS = /\b(\d{1,5})\s*(\+|or\s+more)?\s+(?:direct\s+)?reports\b/i;

function teamCheck(t: string): EvidenceCheck | null {
  const m = TEAM.exec(t);
  if (m && (m[2] !== undefined || /\b(?:teams?|orgs?|organi[sz]ations?|departments?|groups?)\b/i.test(m[0]))) {
    if (m[2] === undefined && !/\b(?:led|leads?|leading|managed|manages?|managing|heads?|headed|heading|runs?|ran|running|built|builds?|grew|grown)\b/i.test(m[0])) return null;
    const n = m[2] === undefined ? null : Number(m[2]);
    return { kind: 'team', min: n === null ? null : /^(?:over|more)/i.test(m[1] ?? '') ? n + 1 : n };
  }
  const r = REPORTS.exec(t);
  return r ? { kind: 'team', min: Number(r[1]) } : null;
}

function window(text: string): number | null {
  const t = text.toLowerCase();
  if (/\b(?:last|past|previous)\s+(?:12|twelve)\s+months\b|\b(?:last|past|this)\s+year\b|\bwithin a year\b/.test(t)) return 365;
  const m = /\b(?:last|past|previous)\s+(\d+|two|three|six|eighteen)\s+(month|year)s?\b/.exec(t);
  if (m) {
    const n = { two: 2, three: 3, six: 6, eighteen: 18 }[m[1]!] ?? Number(m[1]);
    return m[2] === 'year' ? n * 365 : n * 30;
  }
  if (/\brecently\b|\blately\b/.test(t)) return 180;
  return null;
}

const singularWord = (w: string) => (/(ss|us)$/.test(w) ? w : w.replace(/ies$/, 'y').replace(/s$/, ''));

/** The evidence check a clause asks for, or null when it describes the persona. */
export function evidenceCheckOf(clause: string): EvidenceCheck | null {
  const t = clause.toLowerCase();
  const within = window(t);
  const team = teamCheck(t);
  if (team) return team;
  if (/\b(?:raised|raises|raising|funding|funded|series\s+[a-e]|seed round|pre-seed)\b/.test(t)) {
    const r = /\b(pre-seed|seed|series\s+[a-e])\b/.exec(t);
    return { kind: 'funding', round: r ? r[1]!.replace(/\s+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()) : null, withinDays: within };
  }
  const hiring = /\b(?:hiring|recruiting|open (?:roles|positions) for|looking to hire)\s+(?:for\s+)?(?:(?:a|an|some|more|new)\s+)?([a-z][a-z &/-]*?)(?:\s+(?:in|at|right now|now)\b.*)?$/.exec(t);
  if (hiring && hiring[1]!.trim()) {
    const role = hiring[1]!.trim().split(/\s+/);
    return { kind: 'hiring', role: [...role.slice(0, -1), singularWord(role.at(-1)!)].join(' ') };
  }
  if (/^(?:(?:is|are|actively|currently|now)\s+)*(?:hiring|recruiting)(?:\s+(?:right now|now|actively))?$/.test(t.trim())) return { kind: 'hiring', role: '' };
  const tech = /\b(?:uses?|using|runs? on|built on|build on|on top of|adopted|standardi[sz]ed on)\s+([a-z0-9][\w.+#/-]*(?:\s+(?:cloud|data|sql|analytics)\b)?)/i.exec(clause);
  if (tech) return { kind: 'tech', tool: tech[1]! };
  if (/\b(?:spoke|speaks|speaking|speaker|gave a talk|talks?|keynote|presented|panelist)\b/.test(t)) return { kind: 'talk', withinDays: within };
  if (/\b(?:wrote|writes|written|published|authored|blog(?:ged)?|articles?|op-ed)\b/.test(t)) return { kind: 'article', withinDays: within };
  if (/\blaunch(?:ed|es|ing)?\b/.test(t)) return { kind: 'launch', withinDays: within };
  const office = /\bopen(?:ed|s|ing)?\s+(?:a\s+|an\s+|new\s+)*offices?(?:\s+in\s+([a-z][a-z .-]*?))?(?:\s+(?:in the|within|during)\b.*)?$/.exec(t);
  if (office) return { kind: 'office', city: office[1] ? office[1].trim().replace(/\b\w/g, (c) => c.toUpperCase()) : null, withinDays: within };
  if (/\b(?:new (?:ceo|cto|cfo|coo|cro)|appointed|hired a new|leadership change|changed (?:their|its) (?:ceo|cto|cfo|coo|cro))\b/.test(t)) {
    const role = /\b(ceo|cto|cfo|coo|cro)\b/.exec(t);
    return { kind: 'leadership', role: role ? role[1]!.toUpperCase() : null, withinDays: within };
  }
  return null;
}

/** Clauses of one sentence: split on commas, semicolons and the words that join one requirement to the next. */
function clauses(sentence: string, alternatives: boolean): string[] {
  const joins = alternatives ? /,|;|\s+(?:and|or|that|who|which|whose|while)\s+/i : /,|;|\s+(?:and|that|who|which|whose|while)\s+/i;
  return sentence
    .split(joins)
    .map((c) => {
      let s = c.trim();
      for (let prev = ''; prev !== s; ) {
        prev = s;
        s = s.replace(CONNECTIVES, '');
      }
      return s;
    })
    .filter(Boolean);
}

/** Where an evidence check starts inside a clause that first describes the persona ("Heads of sales in London hiring AEs"). */
const CHECK_START = /\b(?:led|leads|managed|manages|managing|with\s+(?=(?:a\s+team|\d+\s*\+?\s*(?:or\s+more\s+)?(?:direct\s+)?reports)\b)|hiring|recruiting|looking to hire|raised|raises|raising|uses?|using|runs? on|built on|spoke|speaks|gave a talk|launched|opened|appointed|wrote|published)\b/i;

/** A clause as its persona part (possibly empty) and the evidence check it asks for (or null). */
function splitClause(clause: string): { persona: string; check: EvidenceCheck | null; text: string } {
  const whole = evidenceCheckOf(clause);
  const at = CHECK_START.exec(clause);
  if (whole && at && at.index > 0) {
    const tail = clause.slice(at.index);
    const check = evidenceCheckOf(tail);
    if (check) return { persona: clause.slice(0, at.index).trim(), check, text: tail };
  }
  return whole ? { persona: '', check: whole, text: clause } : { persona: clause, check: null, text: clause };
}

const sentences = (query: string) => query.split(/(?<=[.!?])\s+|\n+/).map((s) => s.replace(/[.!?]+$/, '').trim()).filter(Boolean);

export function parseCriteria(query: string): Criteria {
  const personaParts: string[] = [];
  const required: Criteria['required'] = [];
  const priorities: Priority[] = [];
  for (const sentence of sentences(query)) {
    // Once both lists are full, the rest of the query can only add to the persona.
    const full = required.length >= CRITERIA_MAX.required && priorities.length >= CRITERIA_MAX.priorities;
    const priority = PRIORITY_LEAD.test(sentence);
    if (full && priority) continue;
    const body = sentence.replace(PRIORITY_LEAD, '');
    const fragments: string[] = [];
    for (const clause of clauses(body, priority)) {
      const part = splitClause(clause);
      if (part.check && priority) priorities.push({ text: part.text, check: part.check });
      else if (part.check) required.push({ text: part.text, check: part.check });
      if (!part.persona) continue;
      if (priority) {
        const persona = parseQuery(part.persona);
        if (!isEmptyQuery(persona)) priorities.push({ text: part.persona, persona });
      } else fragments.push(part.persona);
    }
    if (fragments.length) personaParts.push(fragments.join(', '));
  }
  return capCriteria({ persona: parseQuery(personaParts.join(', ')), required, priorities });
}

export function describeCheck(c: EvidenceCheck): string {
  const within = 'withinDays' in c && c.withinDays ? ` within ${c.withinDays} days` : '';
  switch (c.kind) {
    case 'funding':
      return `raised ${c.round ? `a ${c.round} round` : 'a funding round'}${within}`;
    case 'hiring':
      return c.role ? `hiring ${c.role}s` : 'hiring';
    case 'team':
      return c.min === null ? 'led a team' : `led a team of ${c.min}+`;
    case 'tech':
      return `uses ${c.tool}`;
    case 'talk':
      return `spoke at a conference${within}`;
    case 'article':
      return `published an article${within}`;
    case 'launch':
      return `launched a product${within}`;
    case 'office':
      return `opened an office${c.city ? ` in ${c.city}` : ''}${within}`;
    case 'leadership':
      return `${c.role ? `new ${c.role}` : 'leadership change'}${within}`;
  }
}
