/** Opening sentences drawn from the caller's notes about the contact ("Recently raised a Series B" → "Congratulations on raising…"). */
import type { Person } from './contact.js';
import type { Tone } from './style.js';
import { clean, escapeRegExp, lowerFirst, pick, stripEndPunctuation, toSecondPerson } from './text.js';

const ING: Record<string, string> = {
  raised: 'raising',
  closed: 'closing',
  launched: 'launching',
  released: 'releasing',
  shipped: 'shipping',
  opened: 'opening',
  won: 'winning',
  joined: 'joining',
  started: 'starting',
  founded: 'founding',
  acquired: 'acquiring',
  expanded: 'expanding',
  hit: 'hitting',
  reached: 'reaching',
  completed: 'completing',
  passed: 'passing',
};

const IRREGULAR_BASE: Record<string, string> = {
  is: 'are',
  was: 'were',
  has: 'have',
  does: 'do',
  goes: 'go',
  "'s": "'re",
  uses: 'use',
  focuses: 'focus',
  causes: 'cause',
};

/** "leads" → "lead", "oversees" → "oversee", "is" → "are": the verb after a "you" subject. */
function baseVerb(word: string): string {
  const lower = word.toLowerCase();
  if (IRREGULAR_BASE[lower]) return IRREGULAR_BASE[lower];
  if (/ed$/.test(lower) || !/s$/.test(lower) || /ss$/.test(lower)) return word;
  if (/[^aeiou]ies$/.test(lower)) return `${word.slice(0, -3)}y`;
  if (/(?:sh|ch|x|z|o)es$/.test(lower)) return word.slice(0, -2);
  return word.slice(0, -1);
}

const VERB_AFTER = /^(?:a|an|the|their|his|her|its|our|over|about|on|at|for|with|into|to|in|across|both|multiple|several|\d)/;
const KNOWN_VERBS =
  /^(?:is|was|has|does|recently|currently|previously|just|also|now|often|uses|runs|leads|manages|owns|heads|builds|sells|works|oversees|handles|focuses|covers|supports|advises|invests|hires|writes|speaks|teaches|organises|organizes|founded|joined|moved|left)$/;

function looksLikeVerb(word: string, next: string): boolean {
  const lower = word.toLowerCase();
  if (KNOWN_VERBS.test(lower)) return true;
  if (/^[a-z]{3,}ed$/.test(lower)) return true;
  if (/^[a-z]{3,}s$/.test(lower) && !/ss$/.test(lower) && VERB_AFTER.test(next)) return true;
  return false;
}

/** "leads a 12-person team" → "lead a 12-person team" (after an inserted "you"). */
function conjugateForYou(clause: string): string {
  const words = clause.split(' ');
  for (let i = 0; i < Math.min(words.length, 3); i += 1) {
    const w = words[i]!;
    if (/^(?:recently|currently|previously|just|also|now|often)$/i.test(w)) continue;
    words[i] = baseVerb(w);
    break;
  }
  return words.join(' ');
}

export function contextClauses(context: string): string[] {
  return context
    .split(/(?<=[.!?])\s+|;\s*|\n+|,?\s+and\s+(?=(?:is|are|was|were|has|have|also|recently|just|currently|[a-z]{3,}ed)\b)/)
    .map((s) => stripEndPunctuation(clean(s)))
    .filter((s) => s.length > 2);
}

/** One opening sentence drawn from a clause of the caller's notes about the contact. */
export function contextSentence(clause: string, p: Person, seed: string, tone: Tone): string | null {
  const subject = p.company ? `${p.company}` : 'your team';
  const c = toSecondPerson(clause, p.first);

  let m = /^(?:we\s+|I\s+)?(met|spoke|chatted|talked)\b(?:\s+with\s+(?:you|him|her|them))?\s*(.*)$/i.exec(c);
  if (m) {
    const verb = m[1]!.toLowerCase();
    const gerund = verb === 'met' ? 'meeting you' : verb === 'chatted' ? 'chatting with you' : 'speaking with you';
    const rest = m[2] ? ` ${m[2]}` : '';
    return tone === 'formal' ? `It was a pleasure ${gerund}${rest}.` : `It was great ${gerund}${rest}.`;
  }
  m = /^(?:you\s+)?(?:recently\s+|just\s+)?(raised|closed|launched|released|shipped|opened|won|joined|started|founded|acquired|expanded|hit|reached|completed|passed)\s+(.+)$/i.exec(c);
  if (m) {
    const lead = tone === 'casual' ? 'Congrats on' : 'Congratulations on';
    return `${lead} ${ING[m[1]!.toLowerCase()]} ${m[2]}${tone === 'formal' ? '.' : '!'}`;
  }
  m = /^(?:(?:is|are)\s+)?(?:currently\s+|actively\s+)?hiring\s+(?:for\s+)?(.+)$/i.exec(c);
  if (m) return `I noticed ${subject} is hiring ${m[1]}.`;
  m = /^(?:you\s+)?(?:recently\s+)?(posted|wrote|blogged|tweeted|commented|spoke|presented|talked|published|shared)\s+(?:recently\s+)?(?:a\s+\w+\s+)?(?:about|on)\s+(.+)$/i.exec(c);
  if (m) {
    const verb = m[1]!.toLowerCase();
    if (/^(?:spoke|presented|talked)$/.test(verb)) return `I enjoyed your recent talk on ${m[2]}.`;
    if (verb === 'commented') return `I saw your comment about ${m[2]}.`;
    return `I read your recent post about ${m[2]}.`;
  }
  const words = c.split(' ');
  const name = escapeRegExp(p.first) + (p.last ? String.raw`(?:\s+${escapeRegExp(p.last)})?` : '');
  const subjectRe = new RegExp(String.raw`^(?:you|he|she|they|${name})\s+(.+)$`, 'i');
  m = subjectRe.exec(c);
  if (m) return `${pick(seed, 'ctx-lead', ['I noticed that', 'I saw that'])} you ${conjugateForYou(m[1]!)}.`;
  if (looksLikeVerb(words[0]!, words[1] ?? '')) {
    return `${pick(seed, 'ctx-lead', ['I noticed that', 'I saw that'])} you ${conjugateForYou(lowerFirst(c))}.`;
  }
  if (/^your\s/i.test(c) || /\b(?:is|are|was|were|has|have|uses|runs|leads|builds|sells|serves|operates|employs)\b/.test(c)) {
    return `${pick(seed, 'ctx-lead', ['I noticed that', 'I saw that'])} ${lowerFirst(c)}.`;
  }
  return null;
}
