/**
 * Plain-language people queries -> structured constraints, deterministically and without a
 * model. The approach is a gazetteer: one phrase dictionary (titles, seniority and function
 * words, industries, size words, countries, regions, cities) matched longest-first over
 * normalized tokens, plus regexes for numeric company sizes, a capture rule for named
 * companies ("at X"), and negation spans ("not at X", "excluding agencies", "no recruiters").
 * Every other meaningful word is a required keyword (it must appear in the title, headline or
 * skills), so a word nobody has empties the result instead of being dropped; `terms` says how
 * each word was used, and why an ignored one was ignored.
 */
import { allCities, allCountries, allRegions, CITY_RENAMES, type City } from '../directory/geo.js';
import { INDUSTRIES, TITLE_ROLES, type JobFunction, type Seniority } from '../directory/taxonomy.js';
import { normalizeCompanyName } from '../directory/urls.js';
import { TITLE_LINES, titleVariants } from './title-equivalence.js';

export interface CompanySize {
  min?: number;
  max?: number;
}

/** One place: every given field must match (a city with its region and country, a region, a country). */
export interface Place {
  city?: string;
  region?: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
}

export type TermRole =
  | 'title' | 'function' | 'seniority' | 'location' | 'industry' | 'company_size' | 'company' | 'keyword' | 'negation' | 'ignored';

/** How one word or phrase of the query was used. */
export interface TermUse {
  text: string;
  use: TermRole;
  /** What it was read as (a canonical title, a place, a size range...). */
  value?: string;
  /** For a title: every canonical title it stands for, `value` first (the documented equivalences, title-equivalence.ts). */
  variants?: string[];
  /** The term excludes what it names ("not at Acme", "no recruiters"). */
  excluded?: true;
  /** Why an ignored term was ignored. */
  reason?: string;
}

export interface ParsedQuery {
  /**
   * Canonical title phrases (TITLE_ROLES titles); a person matches if their title maps to any. A title in the
   * query adds itself and its documented equivalents (title-equivalence.ts).
   */
  titles: string[];
  functions: string[];
  seniorities: string[];
  /** A person matches any listed place. */
  locations: Place[];
  industries: string[];
  companySize: CompanySize | null;
  /** normalizeCompanyName() forms */
  companies: string[];
  /** Required words: each must appear in the person's title, headline or skills. */
  keywords: string[];
  exclusions: { companies: string[]; industries: string[]; titles: string[]; seniorities: string[]; functions: string[]; keywords: string[] };
  terms: TermUse[];
}

// ---- normalization -------------------------------------------------------------------------

/** Light English singular, applied identically to dictionary phrases and query tokens. */
export function singular(w: string): string {
  if (w.length >= 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length >= 5 && /(?:ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length >= 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

const stripAccents = (s: string) =>
  s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/ł/g, 'l').replace(/Ł/g, 'L').replace(/ø/g, 'o').replace(/Ø/g, 'O');

/** Case-preserving cleanup shared by the tokenizer and the dictionary. */
function prepare(text: string): string {
  return stripAccents(text)
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .replace(/\b((?:[A-Za-z]\.){2,})/g, (m) => m.replace(/\./g, '')) // U.S. -> US, D.C. -> DC
    .replace(/([A-Za-z])\.([A-Za-z])/g, '$1$2'); // node.js -> nodejs
}

interface Tok {
  raw: string; // original case, accents stripped
  low: string;
  key: string; // singular(low), the dictionary form
  boundary: boolean; // punctuation that ends phrases and captures
  at: number; // offset in the prepared text, to order terms
}

function tokenize(prepared: string): Tok[] {
  const out: Tok[] = [];
  for (const m of prepared.matchAll(/[A-Za-z0-9]+(?:\+\+|#)?|[,;:!?()[\]|/.]/g)) {
    const raw = m[0];
    const boundary = !/[A-Za-z0-9]/.test(raw[0]!);
    const low = raw.toLowerCase();
    out.push({ raw, low, key: boundary ? low : singular(low), boundary, at: m.index });
  }
  return out;
}

const phraseKeys = (phrase: string): string[] => tokenize(prepare(phrase)).filter((t) => !t.boundary).map((t) => t.key);

/** The searchable words of a text, in the form query keywords take (see `keywordKey`). */
export const textKeys = phraseKeys;

/** The form a query keyword is looked up in: the same normalization the text went through. */
export const keywordKey = (keyword: string): string => singular(keyword.toLowerCase());

// ---- the dictionary ------------------------------------------------------------------------

type Effect =
  | { t: 'title'; v: string }
  | { t: 'function'; v: JobFunction }
  | { t: 'seniority'; v: Seniority[] }
  | { t: 'industry'; v: string }
  | { t: 'size'; v: CompanySize }
  | { t: 'city'; v: string[] }
  | { t: 'region'; v: string }
  | { t: 'country'; v: string }
  | { t: 'countries'; v: string[] };

/** `cue`: only after a location cue ("in", "based in", "from"); `cueOrUpper`: or written in capitals ("US"). */
type Guard = 'cue' | 'cueOrUpper' | 'upper';

interface Entry {
  keys: string[];
  effect: Effect;
  guard?: Guard;
}

const SENIORITY_WORDS: [string[], Seniority[]][] = [
  [['intern', 'internship', 'trainee', 'summer intern', 'working student'], ['intern']],
  [['junior', 'jr', 'entry level', 'entry', 'graduate', 'new grad', 'recent graduate', 'associate', 'early career'], ['entry']],
  [['senior', 'sr', 'senior level', 'mid senior'], ['senior']],
  [['manager', 'mgr', 'manager level', 'people manager', 'middle management', 'managerial'], ['manager']],
  [['director', 'director level', 'head', 'head of department'], ['director']],
  [['vp', 'vice president', 'vp level', 'svp', 'evp', 'senior vice president', 'executive vice president'], ['vp']],
  [['c level', 'c suite', 'cxo', 'chief', 'c level executive', 'c suite executive', 'csuite'], ['c_level']],
  [['founder', 'co founder', 'cofounder', 'owner', 'business owner', 'founding team', 'company owner', 'startup founder'], ['founder']],
  [['executive', 'exec', 'senior executive', 'senior leader', 'senior leadership', 'top executive'], ['c_level', 'vp']],
  [['leader', 'leadership', 'leadership team'], ['director', 'vp', 'c_level']],
  [['decision maker', 'key decision maker'], ['director', 'vp', 'c_level', 'founder']],
];

const FUNCTION_WORDS: [string[], JobFunction][] = [
  [['engineering', 'engineer', 'software engineering', 'engineering team', 'r and d'], 'engineering'],
  [['sales', 'salespeople', 'salesperson', 'seller', 'business development', 'bizdev', 'sales team'], 'sales'],
  [['marketing', 'marketer', 'marketing team'], 'marketing'],
  [['product', 'product management', 'product team'], 'product'],
  [['design', 'ux', 'design team'], 'design'],
  [['finance', 'fp and a', 'finance team'], 'finance'],
  [['hr', 'human resources', 'people operations', 'people ops', 'talent', 'talent acquisition', 'recruiting', 'recruitment', 'people team'], 'hr'],
  [['operations', 'ops', 'supply chain', 'procurement', 'operations team'], 'operations'],
  [['customer success', 'customer support', 'customer service', 'customer experience', 'support', 'cx', 'support team'], 'customer_success'],
  [['legal', 'compliance', 'legal team'], 'legal'],
  [['data', 'analytics', 'data science', 'machine learning', 'ml', 'business intelligence', 'data team'], 'data'],
  [['it security', 'information security', 'security', 'it department', 'it team', 'it support', 'it operations'], 'it_security'],
  [['clinical', 'clinician', 'clinical staff', 'medical staff', 'nursing', 'healthcare worker', 'health care worker', 'healthcare professional'], 'clinical'],
  [['teaching', 'teaching staff', 'faculty', 'academic staff'], 'education'],
  [['production', 'plant operations', 'quality', 'quality control', 'quality assurance', 'shop floor'], 'manufacturing'],
  [['trades', 'skilled trades', 'tradespeople', 'tradesperson', 'tradesman', 'tradesmen', 'craftsmen', 'construction workers'], 'trades'],
  [['public administration', 'civil service', 'civil servant', 'public servant', 'government official'], 'public_sector'],
];

/** Size words. "enterprise" alone is handled in code: it is also a sales segment ("enterprise AEs"). */
const SIZE_WORDS: [string[], CompanySize][] = [
  [['startup', 'start up', 'early stage startup', 'seed stage startup', 'early stage company', 'startup company'], { max: 200 }],
  [['small company', 'small business', 'smb', 'small firm', 'smes', 'sme', 'small organization'], { max: 200 }],
  [['mid size', 'midsize', 'mid sized', 'mid market', 'midmarket', 'medium sized', 'medium size', 'medium business', 'mid size company', 'medium company', 'scaleup', 'scale up'], { min: 201, max: 999 }],
  [['large company', 'big company', 'large enterprise', 'large organization', 'large corporation', 'big corporation', 'enterprise company', 'enterprise organization', 'enterprise business', 'corporate', 'large firm', 'multinational', 'fortune 500'], { min: 1000 }],
];

/** Location aliases people actually type. */
const PLACE_ALIASES: [string[], Effect, Guard?][] = [
  [['nyc', 'new york city', 'manhattan', 'new york ny'], { t: 'city', v: ['New York'] }],
  [['sf', 'san fran', 'san francisco'], { t: 'city', v: ['San Francisco'] }],
  [['bay area', 'sf bay area', 'san francisco bay area', 'silicon valley'], { t: 'city', v: ['San Francisco', 'San Jose', 'Oakland'] }],
  [['la'], { t: 'city', v: ['Los Angeles'] }, 'cueOrUpper'],
  [['dc', 'washington dc', 'washington d c'], { t: 'city', v: ['Washington'] }],
  [['philly'], { t: 'city', v: ['Philadelphia'] }],
  [['vegas'], { t: 'city', v: ['Las Vegas'] }],
  [['bangalore'], { t: 'city', v: ['Bengaluru'] }],
  [['bombay'], { t: 'city', v: ['Mumbai'] }],
  [['calcutta'], { t: 'city', v: ['Kolkata'] }],
  [['madras'], { t: 'city', v: ['Chennai'] }],
  [['gurgaon', 'gurugram'], { t: 'city', v: ['Gurgaon'] }],
  [['koln', 'koeln'], { t: 'city', v: ['Cologne'] }],
  [['muenchen', 'munchen'], { t: 'city', v: ['Munich'] }],
  [['lisboa'], { t: 'city', v: ['Lisbon'] }],
  [['greater london', 'london uk', 'london england'], { t: 'city', v: ['London'] }],
  [['washington state', 'state of washington'], { t: 'region', v: 'Washington' }],
  [['new york state', 'state of new york', 'upstate new york'], { t: 'region', v: 'New York' }],
  [['usa', 'united states', 'united states of america', 'america', 'the states', 'stateside'], { t: 'country', v: 'US' }],
  [['us'], { t: 'country', v: 'US' }, 'cueOrUpper'],
  [['uk', 'united kingdom', 'britain', 'great britain', 'gb'], { t: 'country', v: 'GB' }],
  [['uae', 'emirates', 'the emirates'], { t: 'country', v: 'AE' }],
  [['holland', 'the netherlands', 'nederland'], { t: 'country', v: 'NL' }],
  [['deutschland'], { t: 'country', v: 'DE' }],
  [['espana'], { t: 'country', v: 'ES' }],
  [['brasil'], { t: 'country', v: 'BR' }],
  [['korea', 'south korea', 'republic of korea'], { t: 'country', v: 'KR' }],
  [['czech republic'], { t: 'country', v: 'CZ' }],
  [['turkey'], { t: 'country', v: 'TR' }, 'cue'],
  [['ksa', 'saudi'], { t: 'country', v: 'SA' }],
  [['europe', 'european union', 'eu'], { t: 'countries', v: ['GB', 'IE', 'DE', 'FR', 'ES', 'PT', 'IT', 'NL', 'BE', 'LU', 'CH', 'AT', 'SE', 'DK', 'NO', 'FI', 'IS', 'PL', 'CZ', 'SK', 'HU', 'RO', 'BG', 'GR', 'HR', 'SI', 'EE', 'LV', 'LT', 'UA', 'RS', 'CY', 'MT'] }],
  [['dach'], { t: 'countries', v: ['DE', 'AT', 'CH'] }],
  [['nordics', 'nordic countries', 'scandinavia'], { t: 'countries', v: ['SE', 'DK', 'NO', 'FI', 'IS'] }],
  [['benelux'], { t: 'countries', v: ['BE', 'NL', 'LU'] }],
  [['north america'], { t: 'countries', v: ['US', 'CA'] }],
  [['latam', 'latin america', 'south america'], { t: 'countries', v: ['MX', 'BR', 'AR', 'CO', 'CL', 'PE', 'UY', 'EC', 'VE', 'CR', 'PA', 'GT', 'DO', 'BO', 'PY'] }],
  [['apac', 'asia pacific'], { t: 'countries', v: ['AU', 'NZ', 'SG', 'IN', 'JP', 'KR', 'CN', 'HK', 'TW', 'ID', 'MY', 'PH', 'TH', 'VN'] }],
  [['georgia'], { t: 'region', v: 'Georgia' }], // the US state; the country is rarer in this directory
  [['washington'], { t: 'region', v: 'Washington' }],
  [['ontario'], { t: 'region', v: 'Ontario' }],
  [['victoria'], { t: 'region', v: 'Victoria' }, 'cue'],
];

/** Single words that are also place names but usually mean something else in a query. */
const AMBIGUOUS_PLACES = new Set([
  'mobile', 'nice', 'reading', 'split', 'paradise', 'sale', 'batman', 'corona', 'aurora', 'salem', 'york', 'van', 'bello',
  'tema', 'pilar', 'serra', 'franca', 'embu', 'marka', 'sari', 'naga', 'puri', 'kota', 'mau', 'loni', 'orai', 'guna', 'tonk',
  'miri', 'imus', 'coro', 'durg', 'gaya', 'bata', 'jackson', 'lincoln', 'hamilton', 'eugene', 'irving', 'santos', 'cary',
  'queens', 'sutton', 'poole', 'dudley', 'derby', 'durham', 'chad', 'jordan', 'niger', 'mali', 'guinea', 'dominica', 'bo',
  'ica', 'uji', 'ube', 'tsu', 'yao', 'hino', 'fuji', 'osh', 'oral', 'safi', 'marka', 'kure', 'saga', 'ondo', 'ilesa', 'oyo',
  'owo', 'iwo', 'aba', 'bida', 'saki', 'taytay', 'santol', 'bacoor', 'bago',
]);

const LOCATION_CUES = new Set(['in', 'from', 'near', 'around', 'based', 'located', 'living', 'of', 'at', 'within', 'across', 'throughout']);

interface Dictionary {
  byFirst: Map<string, Entry[]>; // entries sorted longest first
  /** phraseKeys(city name) joined -> every city of that name, most populous first */
  namesakes: Map<string, City[]>;
  regionCountry: Map<string, string>;
}

let dictionary: Dictionary | null = null;

function getDictionary(): Dictionary {
  if (dictionary) return dictionary;
  const byFirst = new Map<string, Entry[]>();
  const seen = new Set<string>();
  const namesakes = new Map<string, City[]>();
  for (const c of [...allCities()].sort((a, b) => b.population - a.population)) {
    const id = phraseKeys(c.name).join(' ');
    const list = namesakes.get(id) ?? [];
    if (!list.some((o) => o.country_code === c.country_code && o.region === c.region)) list.push(c);
    namesakes.set(id, list);
  }
  const regionCountry = new Map<string, string>();
  for (const r of allRegions()) if (!regionCountry.has(r.name)) regionCountry.set(r.name, r.country_code);
  // First registration of a phrase wins, so insertion order is precedence.
  const add = (phrase: string, effect: Effect, guard?: Guard) => {
    const keys = phraseKeys(phrase);
    if (!keys.length) return;
    const id = keys.join(' ');
    if (seen.has(id)) return;
    seen.add(id);
    const list = byFirst.get(keys[0]!) ?? [];
    list.push({ keys, effect, guard });
    byFirst.set(keys[0]!, list);
  };

  for (const [phrases, effect, guard] of PLACE_ALIASES) for (const p of phrases) add(p, effect, guard);
  for (const role of TITLE_ROLES) for (const p of [role.title, ...(role.aliases ?? [])]) add(p, { t: 'title', v: role.title });
  for (const [phrases, v] of SENIORITY_WORDS) for (const p of phrases) add(p, { t: 'seniority', v });
  for (const [phrases, v] of FUNCTION_WORDS) for (const p of phrases) add(p, { t: 'function', v });
  add('it', { t: 'function', v: 'it_security' }, 'upper'); // "IT", never the pronoun
  for (const ind of INDUSTRIES) for (const p of [ind.name, ...ind.synonyms]) add(p, { t: 'industry', v: ind.name });
  for (const [phrases, v] of SIZE_WORDS) for (const p of phrases) add(p, { t: 'size', v });

  const countries = allCountries();
  for (const c of countries) add(c.name, { t: 'country', v: c.code }, AMBIGUOUS_PLACES.has(c.name.toLowerCase()) ? 'cue' : undefined);
  for (const [from, to] of Object.entries(CITY_RENAMES)) add(from, { t: 'city', v: [to] });
  // Cities before regions: a name that is both (Berlin, Utrecht) means the city.
  for (const [id, [{ name }]] of namesakes as Map<string, [City]>) {
    const single = !id.includes(' ');
    const guard: Guard | undefined = single && (AMBIGUOUS_PLACES.has(id) || AMBIGUOUS_PLACES.has(name.toLowerCase()) || id.length <= 3) ? 'cue' : undefined;
    add(name, { t: 'city', v: [name] }, guard);
  }
  for (const r of allRegions()) add(r.name, { t: 'region', v: r.name });

  for (const list of byFirst.values()) list.sort((a, b) => b.keys.length - a.keys.length);
  dictionary = { byFirst, namesakes, regionCountry };
  return dictionary;
}

// ---- parsing -------------------------------------------------------------------------------

const STOPWORDS = new Set([
  'a', 'an', 'the', 'in', 'at', 'of', 'for', 'to', 'with', 'who', 'whom', 'that', 'which', 'and', 'or', 'from', 'on', 'by',
  'as', 'is', 'are', 'be', 'been', 'based', 'located', 'living', 'working', 'work', 'works', 'worked', 'employed', 'people',
  'person', 'persons', 'professionals', 'professional', 'someone', 'anyone', 'folks', 'team', 'teams', 'members', 'member',
  'companies', 'company', 'firms', 'firm', 'organizations', 'organization', 'organisations', 'organisation', 'orgs', 'org',
  'businesses', 'business', 'employees', 'employee', 'staff', 'find', 'me', 'show', 'list', 'get', 'looking', 'look', 'search',
  'want', 'need', 'i', 'we', 'our', 'my', 'all', 'any', 'some', 'like', 'such', 'currently', 'current', 'role', 'roles',
  'position', 'positions', 'level', 'job', 'jobs', 'title', 'titles', 'experience', 'experienced', 'expert', 'experts',
  'background', 'skilled', 'knowledge', 'near', 'around', 'area', 'region', 'country', 'city', 'state', 'please', 'top',
  'best', 'good', 'great', 'leading', 'other', 'than', 'but', 'also', 'either', 'both', 'within', 'across', 'into', 'their',
  'them', 'they', 'those', 'these', 'this', 'there', 'here', 'have', 'has', 'having', 'had', 'do', 'does', 'about', 'over',
  'under', 'more', 'less', 'fewer', 'most', 'least', 'up', 'can', 'could', 'would', 'should', 'will', 'hiring', 'whose',
  'out', 'named', 'called', 'just', 'only', 'every', 'each', 'focused', 'focus', 'space',
  'industry', 'industries', 'sector', 'vertical', 'field', 'small', 'large', 'big', 'medium', 'sized', 'size', 'contacts',
  'contact', 'leads', 'lead', 'prospects', 'prospect', 'individuals', 'individual', 'candidates', 'candidate', 'profiles',
  'profile', 'worldwide', 'globally', 'global', 'remote', 'now', 'today', 'recently', 'years', 'year', 'yrs', 'plus',
  'what', 'where', 'when', 'how', 'why', 'it', 'its', 'you', 'your', 'he', 'she', 'his', 'her', 'was', 'were', 'if', 'so',
  'then', 'very', 'remotely', 'us', 'etc', 'eg', 'ie', 'via', 'per', 'using', 'use', 'used', 'preferably', 'ideally', 'mainly', 'mostly',
  // verbs and fillers that describe the person without naming a skill or role
  'know', 'knows', 'knowing', 'known', 'speak', 'speaks', 'speaking', 'fluent', 'doing', 'did', 'done', 'handle', 'handles',
  'handling', 'manage', 'manages', 'managing', 'run', 'runs', 'running', 'build', 'builds', 'building', 'make', 'makes',
  'making', 'help', 'helps', 'helping', 'hold', 'holds', 'holding', 'seek', 'seeking', 'interested', 'familiar', 'proficient',
  'proficiency', 'strong', 'solid', 'deep', 'skills', 'skill', 'understand', 'understands', 'love', 'loves', 'enjoy', 'enjoys',
  'am', 'being', 'got', 'gets', 'go', 'going', 'join', 'joined', 'joining', 'serve', 'serves', 'serving', 'responsible',
  'charge', 'include', 'includes', 'including', 'especially', 'particularly', 'kind', 'type', 'types', 'somebody', 'anybody',
  'everyone', 'everybody', 'specialize', 'specializes', 'specializing', 'specialized', 'specialised', 'specialising', 'whos',
  'hire', 'hired', 'new', 'open', 'presently', 'employ', 'employs', 'employing', 'good', 'able', 'willing', 'ready',
]);

const NEGATION = new Set(['not', 'no', 'non', 'excluding', 'exclude', 'excludes', 'except', 'without', 'excl', 'minus', 'nor']);
/** Cues after which unknown words are company names ("excluding Acme"), unlike "no"/"non"/"without". */
const NAMING_NEGATIONS = new Set(['not', 'excluding', 'exclude', 'excludes', 'except', 'excl', 'other', 'apart', 'aside', 'but', 'minus']);
/** Words that end a negation span once it has content: "not at Acme, based in Berlin". */
const RESUME = new Set(['in', 'based', 'located', 'who', 'that', 'which', 'with', 'near', 'around', 'but', 'while', 'whose']);
/** Words that end a company-name capture. */
const CAPTURE_STOP = new Set(['in', 'based', 'located', 'with', 'who', 'that', 'which', 'near', 'around', 'and', 'or', 'but', 'not',
  'excluding', 'except', 'without', 'no', 'for', 'as', 'from', 'at', 'who', 'whose', 'where', 'working', 'plus', 'nor', 'minus', 'exclude']);
const CONNECTORS = new Set(['of', 'de', 'la', 'and', 'the', 'du', 'der', 'van', 'von', 'y', 'e']);
const COMPANY_WORDS = new Set(['company', 'firm', 'organization', 'organisation', 'business', 'client', 'customer', 'corporation', 'org']);

const isUpperStart = (raw: string) => /^[A-Z]/.test(raw);

function emptyQuery(): ParsedQuery {
  return {
    titles: [], functions: [], seniorities: [],
    locations: [],
    industries: [], companySize: null, companies: [],
    keywords: [],
    exclusions: { companies: [], industries: [], titles: [], seniorities: [], functions: [], keywords: [] },
    terms: [],
  };
}

const pushUnique = <T>(xs: T[], ...vs: T[]) => {
  for (const v of vs) if (!xs.includes(v)) xs.push(v);
};

const samePlace = (a: Place, b: Place) => a.city === b.city && a.region === b.region && a.country === b.country;
const describePlace = (p: Place) => [p.city, p.region, p.country].filter(Boolean).join(', ');
function describeSize(s: CompanySize): string {
  if (s.min !== undefined && s.max !== undefined) return `${s.min}-${s.max} employees`;
  return s.min !== undefined ? `at least ${s.min} employees` : `at most ${s.max} employees`;
}

function mergeSize(q: ParsedQuery, s: CompanySize) {
  const cur = q.companySize ?? {};
  const out: CompanySize = { ...cur };
  if (s.min !== undefined) out.min = Math.max(cur.min ?? 0, s.min);
  if (s.max !== undefined) out.max = Math.min(cur.max ?? Infinity, s.max);
  q.companySize = out;
}

// Numeric company sizes, matched on the lower-cased prepared text before tokenizing.
const NUM = String.raw`(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|m)?`;
const EMP = String.raw`(?:employees?|people|staff|headcount|persons?|workers|ftes?)`;
const num = (digits: string, unit: string | undefined) => Math.round(Number(digits.replace(/,/g, '')) * (unit === 'k' ? 1000 : unit === 'm' ? 1_000_000 : 1));
const RANGE = (n: number[]): CompanySize => ({ min: Math.min(n[0]!, n[1]!), max: Math.max(n[0]!, n[1]!) });
/** [pattern, how many numbers it captures, constraint] */
const SIZE_PATTERNS: [RegExp, 1 | 2, (n: number[]) => CompanySize][] = [
  [new RegExp(String.raw`\b(?:between\s+)?${NUM}\s*(?:-|–|to|and)\s*${NUM}\s*\+?\s*${EMP}\b`, 'g'), 2, RANGE],
  [new RegExp(String.raw`\b(?:headcount|company\s+size|size|employees)\s*(?:of|:)?\s*(?:between\s+)?${NUM}\s*(?:-|–|to)\s*${NUM}\b`, 'g'), 2, RANGE],
  [new RegExp(String.raw`\b(?:fewer|less)\s+than\s+${NUM}\s*${EMP}\b`, 'g'), 1, ([a]) => ({ max: a! - 1 })],
  [new RegExp(String.raw`\b(?:under|below)\s+${NUM}\s*${EMP}\b`, 'g'), 1, ([a]) => ({ max: a! - 1 })],
  [new RegExp(String.raw`\b(?:at\s+most|up\s+to|no\s+more\s+than|maximum\s+of|max)\s+${NUM}\s*${EMP}\b`, 'g'), 1, ([a]) => ({ max: a! })],
  [new RegExp(String.raw`\b(?:(?:more|greater)\s+than|over|above)\s+${NUM}\s*\+?\s*${EMP}\b`, 'g'), 1, ([a]) => ({ min: a! + 1 })],
  [new RegExp(String.raw`\b(?:at\s+least|minimum\s+of|min)\s+${NUM}\s*${EMP}\b`, 'g'), 1, ([a]) => ({ min: a! })],
  [new RegExp(String.raw`\b${NUM}\s*\+\s*${EMP}`, 'g'), 1, ([a]) => ({ min: a! })],
  [new RegExp(String.raw`\b${NUM}\s*${EMP}\s+or\s+(?:more|greater|above)\b`, 'g'), 1, ([a]) => ({ min: a! })],
  [new RegExp(String.raw`\b${NUM}\s*${EMP}\s+or\s+(?:fewer|less)\b`, 'g'), 1, ([a]) => ({ max: a! })],
];

export function parseQuery(text: string): ParsedQuery {
  const q = emptyQuery();
  let prepared = prepare(text.slice(0, 2000))
    .replace(/\b(no|low)-code\b/gi, '$1code') // a product category, not a negation
    // "VPs of sales and marketing" -> "VPs of sales and VPs of marketing"
    .replace(/\b(vps?|vice presidents?|heads?|directors?)\s+of\s+([a-z]+)\s+(and|or)\s+(?!vps?\b|heads?\b|directors?\b)([a-z]+)\b/gi, '$1 of $2 $3 $1 of $4');
  if (prepared.toLowerCase().length !== prepared.length) prepared = prepared.toLowerCase();
  const sizes: { at: number; size: CompanySize; text: string }[] = [];
  let lower = prepared.toLowerCase();
  for (const [re, arity, make] of SIZE_PATTERNS) {
    lower = lower.replace(re, (m: string, ...groups: unknown[]) => {
      const g = groups as (string | undefined)[];
      const at = groups[arity * 2] as number;
      const n: number[] = [];
      for (let k = 0; k < arity; k++) n.push(num(g[k * 2]!, g[k * 2 + 1]));
      sizes.push({ at, size: make(n), text: prepared.slice(at, at + m.length).trim() });
      prepared = prepared.slice(0, at) + ' , '.padEnd(m.length, ' ') + prepared.slice(at + m.length);
      return ' , '.padEnd(m.length, ' ');
    });
  }

  const toks = tokenize(prepared);
  const dict = getDictionary();
  const used = new Array<boolean>(toks.length).fill(false);
  // Negation spans: neg[i] holds the cue word that negates token i, or null.
  const neg = new Array<string | null>(toks.length).fill(null);
  // The use of each consumed span, keyed by its first token.
  const uses = new Map<number, TermUse>();
  const mark = (from: number, to: number, use: Omit<TermUse, 'text'>) => {
    const text = toks.slice(from, to).map((t) => t.raw).join(' ').replace(/ ([,;:!?.])/g, '$1');
    uses.set(from, { text, ...use });
    for (let k = from; k < to; k++) used[k] = true;
  };

  const matchAt = (i: number, polarity: string | null): Entry | null => {
    const t = toks[i]!;
    if (t.boundary || used[i]) return null;
    for (const e of dict.byFirst.get(t.key) ?? []) {
      if (i + e.keys.length > toks.length) continue;
      let ok = true;
      for (let k = 0; k < e.keys.length && ok; k++) {
        const u = toks[i + k]!;
        ok = !u.boundary && !used[i + k] && u.key === e.keys[k] && neg[i + k] === polarity;
      }
      if (ok && e.guard && !guardOk(e.guard, i)) ok = false;
      if (ok) return e;
    }
    return null;
  };
  const guardOk = (g: Guard, i: number): boolean => {
    if (g === 'upper') return toks[i]!.raw === toks[i]!.raw.toUpperCase() && toks[i]!.raw.length > 1;
    if (g === 'cueOrUpper' && toks[i]!.raw === toks[i]!.raw.toUpperCase()) return true;
    let j = i - 1;
    while (j >= 0 && (toks[j]!.low === 'the' || toks[j]!.low === 'greater')) j--;
    return j >= 0 && LOCATION_CUES.has(toks[j]!.low);
  };

  // 1) negation spans
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    let cue: string | null = null;
    let width = 1;
    if (NEGATION.has(t.low) && !(matchAt(i, null)?.keys.length ?? 0)) cue = t.low;
    else if ((t.low === 'other' && toks[i + 1]?.low === 'than') || ((t.low === 'apart' || t.low === 'aside') && toks[i + 1]?.low === 'from')) {
      cue = t.low;
      width = 2;
    } else if (t.low === 'but' && toks[i + 1]?.low === 'not') {
      cue = 'not';
      width = 2;
    }
    if (!cue) continue;
    mark(i, i + width, { use: 'negation' });
    let content = false;
    let j = i + width;
    for (; j < toks.length; j++) {
      const u = toks[j]!;
      if (u.boundary) break;
      if (content && RESUME.has(u.low)) break;
      if (NEGATION.has(u.low) && content) break;
      neg[j] = cue;
      if (!STOPWORDS.has(u.low)) content = true;
    }
    i = j - 1;
  }

  /** Places a city name stands for: its most populous namesake, or the namesakes inside a qualifier. */
  const cityPlaces = (names: string[], qualifier: Place | null): Place[] =>
    names.flatMap((name) => {
      const all = dict.namesakes.get(phraseKeys(name).join(' ')) ?? [];
      const fit = qualifier ? all.filter((c) => c.country_code === qualifier.country && (!qualifier.region || c.region === qualifier.region)) : all.slice(0, 1);
      if (fit.length) return fit.map((c): Place => (c.region ? { city: c.name, region: c.region, country: c.country_code } : { city: c.name, country: c.country_code }));
      return qualifier ? [{ city: name, ...qualifier }] : [];
    });
  const regionPlace = (name: string): Place => ({ region: name, country: dict.regionCountry.get(name) ?? '' });
  /** A region or country right after a place ("London, Ontario", "Portland, Maine", "Ontario, Canada"). */
  const qualifierAt = (j: number, polarity: string | null): { place: Place; end: number } | null => {
    let k = j;
    if (toks[k]?.low === ',') k++;
    if (k >= toks.length) return null;
    const e = matchAt(k, polarity);
    if (!e) return null;
    if (e.effect.t === 'region') return { place: regionPlace(e.effect.v), end: k + e.keys.length };
    if (e.effect.t === 'country') return { place: { country: e.effect.v }, end: k + e.keys.length };
    return null;
  };

  /** Applies a dictionary entry matched at token i; returns the index after everything it consumed. */
  const apply = (e: Entry, i: number, polarity: string | null): number => {
    let end = i + e.keys.length;
    const excluded = polarity === null ? {} : { excluded: true as const };
    const eff = e.effect;
    if (eff.t === 'city' || eff.t === 'region' || eff.t === 'country' || eff.t === 'countries') {
      if (polarity !== null) {
        mark(i, end, { use: 'ignored', reason: 'excluding a place is not supported' });
        return end;
      }
      let places: Place[];
      const qualifier = eff.t === 'city' || eff.t === 'region' ? qualifierAt(end, polarity) : null;
      if (eff.t === 'city') places = cityPlaces(eff.v, qualifier?.place ?? null);
      else if (eff.t === 'region') {
        const region = regionPlace(eff.v);
        const q2 = qualifier?.place;
        places = [q2 && !q2.region && q2.country !== region.country ? { region: eff.v, country: q2.country } : region];
      } else if (eff.t === 'country') places = [{ country: eff.v }];
      else places = eff.v.map((c) => ({ country: c }));
      if (qualifier && eff.t !== 'country' && eff.t !== 'countries' && (eff.t === 'city' || !qualifier.place.region)) end = qualifier.end;
      for (const p of places) if (!q.locations.some((o) => samePlace(o, p))) q.locations.push(p);
      mark(i, end, { use: 'location', value: places.map(describePlace).join(' | ') || 'no such place' });
      return end;
    }
    switch (eff.t) {
      case 'title': {
        const variants = titleVariants(eff.v);
        pushUnique(polarity === null ? q.titles : q.exclusions.titles, ...variants);
        mark(i, end, { use: 'title', value: eff.v, variants, ...excluded });
        break;
      }
      case 'function':
        pushUnique(polarity === null ? q.functions : q.exclusions.functions, eff.v);
        mark(i, end, { use: 'function', value: eff.v, ...excluded });
        break;
      case 'seniority':
        pushUnique(polarity === null ? q.seniorities : q.exclusions.seniorities, ...eff.v);
        mark(i, end, { use: 'seniority', value: eff.v.join(', '), ...excluded });
        break;
      case 'industry':
        pushUnique(polarity === null ? q.industries : q.exclusions.industries, eff.v);
        mark(i, end, { use: 'industry', value: eff.v, ...excluded });
        break;
      case 'size':
        if (polarity !== null) mark(i, end, { use: 'ignored', reason: 'excluding a company size is not supported' });
        else {
          mergeSize(q, eff.v);
          mark(i, end, { use: 'company_size', value: describeSize(eff.v) });
        }
        break;
    }
    return end;
  };
  const addCompany = (words: number[], polarity: string | null) => {
    const name = normalizeCompanyName(words.map((k) => toks[k]!.low).join(' '));
    if (!name) return;
    pushUnique(polarity === null ? q.companies : q.exclusions.companies, name);
    mark(words[0]!, words.at(-1)! + 1, { use: 'company', value: name, ...(polarity === null ? {} : { excluded: true as const }) });
  };
  const startsDictionary = (i: number) => {
    if (toks[i]!.key === 'enterprise') return true; // a size word in context, never a company
    const e = matchAt(i, neg[i] ?? null);
    return e !== null && !(e.effect.t === 'city' && e.guard === 'cue');
  };

  // 2) named companies: "at X", "working for X", "employees of X", "from X" (capitalized)
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const prev = toks[i - 1]?.low;
    const next = toks[i + 1];
    const isCue =
      t.low === 'at' ||
      (t.low === 'for' && (prev === 'work' || prev === 'working' || prev === 'works' || prev === 'worked')) ||
      (t.low === 'of' && (prev === 'employees' || prev === 'employee' || prev === 'alumni')) ||
      (t.low === 'by' && prev === 'employed') ||
      (t.low === 'from' && next !== undefined && isUpperStart(next.raw));
    if (!isCue || used[i]) continue;
    const polarity = neg[i] ?? (next ? neg[i + 1]! : null);
    let j = i + 1;
    for (;;) {
      while (j < toks.length && ['a', 'an', 'the'].includes(toks[j]!.low) && !isUpperStart(toks[j]!.raw)) j++;
      if (j >= toks.length || toks[j]!.boundary || used[j] || neg[j] !== polarity) break;
      if (STOPWORDS.has(toks[j]!.low) || startsDictionary(j) || /^\d+$/.test(toks[j]!.low)) break;
      const capital = isUpperStart(toks[j]!.raw);
      const words: number[] = [];
      for (let k = j; k < toks.length && words.length < 6; k++) {
        const u = toks[k]!;
        if (u.boundary || used[k] || neg[k] !== polarity) break;
        if (CAPTURE_STOP.has(u.low) && !(capital && CONNECTORS.has(u.low) && toks[k + 1] && isUpperStart(toks[k + 1]!.raw))) break;
        // A lower-case word ends a capitalized name, unless it closes the query or clause as the
        // name's last word ("Razoa io", a brand with a lower-case suffix).
        const closesName = (toks[k + 1]?.boundary ?? true) && !STOPWORDS.has(u.low) && !startsDictionary(k);
        if (capital && !isUpperStart(u.raw) && !/^\d/.test(u.raw) && !CONNECTORS.has(u.low) && !closesName) break;
        words.push(k);
      }
      // Lower-case input: stop before a role word that is followed by more words ("acme sales team").
      if (!capital) {
        for (let w = 1; w < words.length; w++) {
          const e = matchAt(words[w]!, polarity);
          if (e && (e.effect.t === 'title' || e.effect.t === 'function' || e.effect.t === 'seniority') && w + e.keys.length < words.length) {
            words.length = w;
            break;
          }
        }
      }
      while (words.length && CONNECTORS.has(toks[words.at(-1)!]!.low)) words.pop();
      if (!words.length) break;
      if (!used[i]) mark(i, i + 1, { use: 'ignored', reason: 'introduces a company name' });
      addCompany(words, polarity);
      j = words.at(-1)! + 1;
      // "at Acme or Globex": continue when the next word is not a known term.
      if (j + 1 < toks.length && (toks[j]!.low === 'or' || toks[j]!.low === 'and' || toks[j]!.low === ',') && neg[j + 1] === polarity) {
        const k = j + 1;
        if (!toks[k]!.boundary && !STOPWORDS.has(toks[k]!.low) && !startsDictionary(k) && (isUpperStart(toks[k]!.raw) || !capital)) {
          if (!toks[j]!.boundary) mark(j, j + 1, { use: 'ignored', reason: 'stop word' });
          j = k;
          continue;
        }
      }
      break;
    }
  }

  // 3) dictionary phrases, longest first; "enterprise" decided by context
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (used[i] || t.boundary) continue;
    const polarity = neg[i] ?? null;
    const e = matchAt(i, polarity);
    if (e) {
      i = apply(e, i, polarity) - 1;
      continue;
    }
    if (t.key === 'enterprise') {
      const next = toks[i + 1];
      const prev = toks[i - 1]?.low ?? '';
      const nextIsCompany = next !== undefined && !next.boundary && COMPANY_WORDS.has(next.key);
      const atEnd = next === undefined || next.boundary || STOPWORDS.has(next.low);
      if (t.low === 'enterprises' || nextIsCompany || (atEnd && ['at', 'in', 'for', 'from', 'large', 'big', 'an'].includes(prev))) {
        if (polarity !== null) mark(i, nextIsCompany ? i + 2 : i + 1, { use: 'ignored', reason: 'excluding a company size is not supported' });
        else {
          mergeSize(q, { min: 1000 });
          mark(i, nextIsCompany ? i + 2 : i + 1, { use: 'company_size', value: describeSize({ min: 1000 }) });
        }
      }
    }
  }

  // 4) leftovers: required keywords, ignored words, or excluded names after "excluding"/"except"/"not"
  let group: number[] = [];
  let groupPolarity: string | null = null;
  const flush = () => {
    if (group.length && groupPolarity && NAMING_NEGATIONS.has(groupPolarity)) addCompany(group, groupPolarity);
    group = [];
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const polarity = neg[i] ?? null;
    const stop = STOPWORDS.has(t.low);
    if (used[i] || t.boundary || stop || polarity !== groupPolarity) {
      flush();
      groupPolarity = polarity;
      if (stop && !used[i]) mark(i, i + 1, { use: 'ignored', reason: 'stop word' });
      if (used[i] || t.boundary || stop) continue;
    }
    if (/^\d+$/.test(t.low)) mark(i, i + 1, { use: 'ignored', reason: 'a number without a unit' });
    else if (t.low.length < 2) mark(i, i + 1, { use: 'ignored', reason: 'too short to search for' });
    else if (polarity === null) {
      pushUnique(q.keywords, t.low);
      mark(i, i + 1, { use: 'keyword', value: t.low });
    } else if (NAMING_NEGATIONS.has(polarity)) group.push(i);
    else {
      pushUnique(q.exclusions.keywords, t.low);
      mark(i, i + 1, { use: 'keyword', value: t.low, excluded: true });
    }
  }
  flush();

  for (const s of sizes.sort((a, b) => a.at - b.at)) mergeSize(q, s.size);
  const ordered: { at: number; use: TermUse }[] = [
    ...[...uses].map(([i, use]) => ({ at: toks[i]!.at, use })),
    ...sizes.map((s) => ({ at: s.at, use: { text: s.text, use: 'company_size' as const, value: describeSize(s.size) } })),
  ];
  q.terms = ordered.sort((a, b) => a.at - b.at).map((o) => o.use);
  return q;
}

// ---- titles --------------------------------------------------------------------------------

const PARENTS = new Map(TITLE_ROLES.map((r) => [r.title, r.parents ?? []]));
const titleCache = new Map<string, string[]>();

/**
 * Words right before a role that make the title another role: an assistant or deputy to it, an associate or
 * assistant level below it, someone who no longer holds it ("Executive Assistant to the CEO", "Deputy Head of
 * Sales", "Associate Director of Finance", "Assistant Vice President"). A longer canonical title that starts
 * with the word is matched first and is not affected ("Associate Product Manager", "Assistant Professor").
 */
const NOT_THE_ROLE_BEFORE = new Set(['assistant', 'deputy', 'associate', 'former', 'ex', 'aspiring', 'future', 'to', 'avp']);
/** Words right after a role that make the title another role ("Sales Manager Assistant", "Software Engineer Intern"). */
const NOT_THE_ROLE_AFTER = new Set(['assistant', 'intern', 'internship', 'trainee', 'apprentice', 'apprenticeship']);
/**
 * A word after "<level> of <function>" that names a sub-function: "VP of Sales Operations", "Head of People
 * Analytics", "Director of Engineering Enablement" lead that specialty, not the function.
 */
const SUB_FUNCTION = new Set(['operation', 'ops', 'analytic', 'enablement', 'system', 'engineering']);
/** Level words of an inverted title: "Manager, Human Resources", "Director, Finance", "Vice President Sales". */
const INVERTIBLE_LEVEL = new Set(['manager', 'director', 'head', 'vp', 'lead']);
/** Words that only qualify the level word of an inverted title ("Senior Manager, HR", "Global Head, Sales"). */
const LEVEL_QUALIFIERS = new Set(['senior', 'sr', 'lead', 'principal', 'staff', 'global', 'regional', 'group', 'interim', 'acting', 'country', 'area', 'national', 'general']);
/** Scope words between a level and its function ("Head of EMEA Sales", "VP of International Sales"). */
const SCOPE_WORDS = new Set(['emea', 'apac', 'amer', 'america', 'latam', 'dach', 'nordic', 'international', 'worldwide', 'north', 'south', 'eu', 'uk', 'us']);
/** VP spellings that are VPs: senior and executive vice presidents. */
const VP_KEYS = new Map([['svp', 'vp'], ['evp', 'vp']]);

let functionPhrases: Set<string> | null = null;
/** Function names as key strings ("human resource", "people operation", "sale"), for inverted titles. */
function isFunctionPhrase(keys: string[]): boolean {
  if (!functionPhrases) {
    functionPhrases = new Set<string>();
    for (const [phrases] of FUNCTION_WORDS) for (const p of phrases) functionPhrases.add(phraseKeys(p).join(' '));
    for (const l of TITLE_LINES) for (const n of l.names) functionPhrases.add(phraseKeys(n).join(' '));
  }
  return functionPhrases.has(keys.join(' '));
}

/**
 * The readings of a title the role scan runs over: the title itself; each side of an "and" ("VP of Sales &
 * Marketing" reads as "VP of Sales" and "VP of Marketing", "HR & Payroll Manager" as "HR Manager" and "Payroll
 * Manager"); and an inverted title in its usual order ("Senior Manager, HR" as "Senior HR Manager" and "Senior
 * Manager of HR").
 */
function titleReadings(toks: Tok[]): Tok[][] {
  const out: Tok[][] = [toks];
  const seen = new Set<string>([toks.map((t) => t.key).join(' ')]);
  const push = (r: Tok[]) => {
    const id = r.map((t) => t.key).join(' ');
    if (!seen.has(id) && out.length < 16) {
      seen.add(id);
      out.push(r);
    }
  };
  const word = (t: Tok | undefined) => t !== undefined && !t.boundary;
  for (let n = 0; n < out.length; n++) {
    const r = out[n]!;
    for (let a = 1; a < r.length - 1; a++) {
      if (r[a]!.key !== 'and' || !word(r[a - 1]) || !word(r[a + 1])) continue;
      push([...r.slice(0, a), ...r.slice(a + 2)]); // "VP of Sales [and Marketing]"
      push([...r.slice(0, a - 1), ...r.slice(a + 1)]); // "VP of [Sales and] Marketing"
    }
    for (let l = 0; l < r.length; l++) {
      if (!INVERTIBLE_LEVEL.has(r[l]!.key) || !r.slice(0, l).every((t) => LEVEL_QUALIFIERS.has(t.key))) continue;
      let f = l + 1;
      if (r[f]?.low === ',' || r[f]?.key === 'of') f++;
      if (f === l + 1 && r[f]?.boundary) continue;
      while (word(r[f]) && (LEVEL_QUALIFIERS.has(r[f]!.key) || SCOPE_WORDS.has(r[f]!.key)) && word(r[f + 1])) f++; // "Vice President, Global Sales", "Head of EMEA Sales"
      // The function phrase runs to the end of the title, a boundary or an "and".
      let e = f;
      while (word(r[e]) && r[e]!.key !== 'and') e++;
      if (e === f || !isFunctionPhrase(r.slice(f, e).map((t) => t.key))) continue;
      const of: Tok = { raw: 'of', low: 'of', key: 'of', boundary: false, at: r[l]!.at };
      push([...r.slice(0, l), ...r.slice(f, e), r[l]!, ...r.slice(e)]); // "Senior HR Manager"
      if (r[l]!.key !== 'manager') push([...r.slice(0, l + 1), of, ...r.slice(f, e), ...r.slice(e)]); // "Director of Finance"
    }
  }
  return out;
}

/** Canonical titles named in one reading of a title, scanning longest phrase first, left to right. */
function scanTitle(toks: Tok[], dict: Dictionary, out: string[]) {
  for (let i = 0; i < toks.length; i++) {
    if (toks[i]!.boundary) continue;
    let best: Entry | null = null;
    for (const e of dict.byFirst.get(toks[i]!.key) ?? []) {
      if (e.effect.t !== 'title' && e.keys.length === 1) continue;
      if (i + e.keys.length > toks.length) continue;
      if (e.keys.every((k, n) => !toks[i + n]!.boundary && toks[i + n]!.key === k)) {
        best = e;
        break;
      }
    }
    if (!best) continue;
    const end = i + best.keys.length;
    if (best.effect.t === 'title') {
      // A phrase that is another role around its words hides nothing shorter inside it: "Associate General
      // Counsel" is not a General Counsel but still counsel.
      if (notTheRole(toks, i, end, best)) continue;
      const stack = [best.effect.v];
      while (stack.length) {
        const t = stack.pop()!;
        if (!out.includes(t)) out.push(t);
        stack.push(...(PARENTS.get(t) ?? []));
      }
    }
    i = end - 1;
  }
}

/** Whether the words around a role phrase make the title another role (see NOT_THE_ROLE_BEFORE). */
function notTheRole(toks: Tok[], from: number, to: number, e: Entry): boolean {
  let b = from - 1;
  while (b >= 0 && (toks[b]!.key === 'the' || toks[b]!.key === 'a')) b--;
  if (b >= 0 && !toks[b]!.boundary && NOT_THE_ROLE_BEFORE.has(toks[b]!.key)) return true;
  const next = toks[to];
  if (!next || next.boundary) return false;
  if (NOT_THE_ROLE_AFTER.has(next.key)) return true;
  return e.keys.includes('of') && SUB_FUNCTION.has(next.key);
}

/**
 * Canonical titles a job title counts as: "Senior Frontend Engineer" -> ["Frontend Engineer",
 * "Software Engineer"]; "Co-Founder & CTO" -> ["Chief Technology Officer"]. Same phrase
 * dictionary as parseQuery, so parsed titles and indexed titles always agree. A role counts
 * wherever it stands in the title, with seniority and scope qualifiers around it ("Senior HR
 * Manager", "HR Manager, EMEA", "Head of Sales (DACH)"), on either side of an "and", and in
 * inverted order ("Director, Finance"); not when the title is someone else's role around it
 * (NOT_THE_ROLE_BEFORE/AFTER, SUB_FUNCTION).
 */
export function titleKeys(title: string): string[] {
  const hit = titleCache.get(title);
  if (hit) return hit;
  const toks: Tok[] = [];
  for (const t of tokenize(prepare(title))) {
    const prev = toks.at(-1);
    if (t.key === 'president' && prev?.key === 'vice') toks[toks.length - 1] = { ...prev, key: 'vp' }; // "Vice President" is "VP"
    else toks.push(VP_KEYS.has(t.key) ? { ...t, key: VP_KEYS.get(t.key)! } : t);
  }
  const dict = getDictionary();
  const out: string[] = [];
  for (const reading of titleReadings(toks)) scanTitle(reading, dict, out);
  titleCache.set(title, out);
  return out;
}

/** A query with nothing to search on (no constraint, no keyword) is invalid input. */
export function isEmptyQuery(q: ParsedQuery): boolean {
  const e = q.exclusions;
  const lists = [q.titles, q.functions, q.seniorities, q.locations, q.industries, q.companies, q.keywords, e.companies, e.industries, e.titles, e.seniorities, e.functions, e.keywords];
  return !q.companySize && lists.every((l) => l.length === 0);
}
