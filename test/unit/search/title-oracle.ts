/**
 * The labelled set's title oracle: which roles a raw job title names, by the documented rule (docs/search.md "How
 * titles match") applied with its own hand-written lexicon — no parser, no engine, no taxonomy aliases. It
 * reads a title the way docs/search.md says titles read: lower case, "&" as "and", "Vice President"/SVP/EVP as VP;
 * each side of an "and"; an inverted "Director, Finance" as "Director of Finance"; then, left to right, the
 * longest lexicon phrase at each word, which does not count after "assistant", "deputy", "associate",
 * "former", "to (the)" or before "assistant", "intern", "trainee", or (for "<level> of <function>") before a
 * sub-function word ("VP of Sales Operations"); a phrase that does not count hides nothing shorter inside it.
 *
 * Roles asked for expand by the documented equivalence table (shared/search-engine/title-equivalence.ts, the
 * docs/search.md's table): same line and level, plus the line's higher levels up to VP.
 */
import { LINE_LEVELS, TITLE_LINES } from '../../../shared/search-engine/title-equivalence.js';

/** Spelling -> the roles it names. A role of its own that no query asks for still shadows shorter phrases. */
const LEXICON: Record<string, string[]> = {};
const role = (name: string, ...spellings: string[]) => {
  for (const s of [name.toLowerCase(), ...spellings]) LEXICON[s] = [...new Set([...(LEXICON[s] ?? []), name])];
};
// HR line
role('HR Manager', 'hr manager', 'human resources manager');
role('People Operations Manager', 'people ops manager');
role('HR Business Partner', 'human resources business partner', 'hrbp');
role('HR Director', 'director of hr', 'director of human resources', 'human resources director');
role('Director of People', 'people director', 'director of people operations', 'director of people ops');
role('Head of People', 'head of hr', 'head of human resources', 'head of people operations', 'head of people ops');
role('VP of Human Resources', 'vp human resources', 'vp hr', 'vp of hr');
role('VP of People', 'vp people', 'vp of people operations', 'vp people operations');
// other lines
role('Sales Manager', 'regional sales manager');
role('Director of Sales', 'sales director');
role('Head of Sales');
role('VP of Sales', 'vp sales', 'sales vp');
role('Marketing Manager');
role('Director of Marketing', 'marketing director');
role('Head of Marketing');
role('VP of Marketing', 'vp marketing', 'marketing vp');
role('Finance Manager');
role('Director of Finance', 'finance director');
role('Head of Finance');
role('VP of Finance', 'vp finance');
role('Engineering Manager', 'software engineering manager');
role('Director of Engineering', 'engineering director');
role('Head of Engineering');
role('VP of Engineering', 'vp engineering', 'engineering vp');
role('Director of Product', 'product director');
role('Head of Product');
role('VP of Product', 'vp product');
role('Design Manager');
role('Director of Design', 'design director');
role('Head of Design');
role('VP of Design', 'vp design');
role('Operations Manager', 'ops manager');
role('Director of Operations', 'operations director');
role('Head of Operations', 'head of ops');
role('VP of Operations', 'vp operations', 'vp ops');
role('Director of Customer Success', 'customer success director');
role('Head of Customer Success');
role('VP of Customer Success', 'vp customer success');
role('Data Science Manager');
role('Analytics Manager');
role('Director of Data Science', 'data science director');
role('Director of Analytics', 'analytics director');
role('Head of Data', 'head of data science', 'head of analytics');
role('VP of Data', 'vp data');
role('Director of Legal', 'legal director');
role('Head of Legal');
role('VP of Legal', 'vp legal');
role('IT Manager');
role('Director of IT', 'it director');
role('VP of IT', 'vp it');
// roles of their own, asked for or only shadowing (a product marketing manager is not a marketing manager)
role('Chief Technology Officer', 'cto', 'chief technical officer');
role('Chief Executive Officer', 'ceo', 'chief executive');
role('Chief Financial Officer', 'cfo');
role('Chief Marketing Officer', 'cmo');
role('Chief Revenue Officer', 'cro');
role('Chief People Officer');
role('Chief Human Resources Officer', 'chro');
role('Chief of Staff');
role('Account Executive', 'account executive');
role('Enterprise Account Executive');
LEXICON['enterprise account executive'] = ['Enterprise Account Executive', 'Account Executive'];
role('Sales Engineer', 'solutions engineer', 'presales engineer', 'pre sales engineer');
role('Account Manager', 'key account manager');
role('Technical Account Manager');
role('Customer Success Manager', 'csm');
role('Product Manager', 'pm');
LEXICON['associate product manager'] = ['Associate Product Manager', 'Product Manager'];
LEXICON['group product manager'] = ['Group Product Manager', 'Product Manager'];
role('Product Marketing Manager', 'pmm');
role('Growth Marketer', 'growth marketing manager');
role('Demand Generation Manager');
role('Legal Operations Manager', 'legal ops manager');
role('Security Operations Manager');
role('Recruiting Manager', 'talent acquisition manager', 'recruitment manager');
role('Head of Talent', 'head of talent acquisition', 'head of recruiting', 'head of recruitment');
role('People Operations Coordinator', 'people ops coordinator');
role('Customer Success Team Lead');
role('Support Manager', 'customer support manager', 'customer service manager');
role('UX Designer', 'user experience designer', 'ui ux designer', 'ux ui designer');
role('Data Scientist');

const LONGEST = Math.max(...Object.keys(LEXICON).map((k) => k.split(' ').length));
const BEFORE = new Set(['assistant', 'deputy', 'associate', 'former', 'ex', 'aspiring', 'future', 'to', 'avp']);
const AFTER = new Set(['assistant', 'intern', 'internship', 'trainee', 'apprentice', 'apprenticeship']);
const SUB_FUNCTION = new Set(['operations', 'ops', 'analytics', 'enablement', 'systems', 'engineering']);
const LEVEL = new Set(['manager', 'director', 'head', 'vp', 'lead']);
const QUALIFIER = new Set(['senior', 'sr', 'lead', 'principal', 'staff', 'global', 'regional', 'group', 'interim', 'acting', 'country', 'area', 'national', 'general']);
const FUNCTION_NAMES = new Set(['hr', 'human resources', 'people', 'people operations', 'people ops', 'sales', 'marketing', 'finance', 'engineering', 'product', 'design', 'operations', 'ops', 'customer success', 'data', 'data science', 'analytics', 'legal', 'it']);

/** The title as words and commas: lower case, "&" as "and", every VP spelling as "vp". */
function words(title: string): string[] {
  return title
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[-–]/g, ' ')
    .replace(/[,()|/]/g, ' , ')
    .replace(/\bvice president\b/g, 'vp')
    .replace(/\b[se]vp\b/g, 'vp')
    .split(/\s+/)
    .filter(Boolean);
}

function readings(ws: string[]): string[][] {
  const out = [ws];
  const and = ws.indexOf('and');
  if (and > 0 && and < ws.length - 1 && ws[and - 1] !== ',' && ws[and + 1] !== ',') {
    out.push([...ws.slice(0, and), ...ws.slice(and + 2)], [...ws.slice(0, and - 1), ...ws.slice(and + 1)]);
  }
  // "[qualifiers] <level>, [qualifiers] <function>" -> "<function> <level>", "<level> of <function>"
  let l = 0;
  while (QUALIFIER.has(ws[l]!) && l < ws.length - 1) l++;
  if (LEVEL.has(ws[l]!) && ws[l + 1] === ',') {
    let f = l + 2;
    while (QUALIFIER.has(ws[f]!) && f < ws.length - 1) f++;
    const fn = ws.slice(f).join(' ');
    if (FUNCTION_NAMES.has(fn)) out.push([...ws.slice(0, l), ...ws.slice(f), ws[l]!], [...ws.slice(0, l + 1), 'of', ...ws.slice(f)]);
  }
  return out;
}

/** Every role a raw job title names. */
export function rolesNamed(title: string): Set<string> {
  const found = new Set<string>();
  for (const ws of readings(words(title))) {
    for (let i = 0; i < ws.length; i++) {
      let n = Math.min(LONGEST, ws.length - i);
      for (; n > 0; n--) if (LEXICON[ws.slice(i, i + n).join(' ')]) break;
      if (!n) continue;
      const phrase = ws.slice(i, i + n);
      let b = i - 1;
      while (b >= 0 && (ws[b] === 'the' || ws[b] === 'a')) b--;
      const after = ws[i + n];
      const blocked = (b >= 0 && BEFORE.has(ws[b]!)) || (after !== undefined && (AFTER.has(after) || (phrase.includes('of') && SUB_FUNCTION.has(after))));
      if (blocked) continue; // the words inside may still name a shorter role
      for (const r of LEXICON[phrase.join(' ')]!) found.add(r);
      i += n - 1;
    }
  }
  return found;
}

/** The roles a role asked for stands for, by the documented table: itself, its line-and-level peers, the line's higher levels up to VP. */
export function rolesAskedFor(title: string): string[] {
  for (const l of TITLE_LINES) {
    const at = LINE_LEVELS.findIndex((level) => l.levels[level]?.includes(title));
    if (at < 0) continue;
    const same = l.levels[LINE_LEVELS[at]!]!;
    return [title, ...same.filter((t) => t !== title), ...LINE_LEVELS.slice(at + 1).flatMap((level) => l.levels[level] ?? [])];
  }
  return [title];
}

const named = new Map<string, Set<string>>();

/** Whether a raw title names any role the asked title stands for. */
export function titleNames(asked: string): (title: string) => boolean {
  const wanted = rolesAskedFor(asked);
  return (title) => {
    let roles = named.get(title);
    if (!roles) named.set(title, (roles = rolesNamed(title)));
    return wanted.some((w) => roles.has(w));
  };
}
