/** How the email should sound and how long it should be, as the instructions say it. */
import { ASK_NOUN } from './ask.js';
import { firstMatch, hasNegatedMatch } from './negation.js';

export type Tone = 'formal' | 'casual' | 'friendly' | 'direct' | 'neutral';
export type Length = 'short' | 'medium' | 'detailed';

const TONE_PATTERNS: Record<Exclude<Tone, 'neutral'>, RegExp> = {
  formal:
    /\b(?:formal|formally|polite|politely|respectful|courteous|corporate|(?:keep it|be|sound|stay)\s+(?:very\s+|more\s+)?professional|professional\s+(?:tone|style|voice|manner))\b/gi,
  casual: /\b(?:casual|casually|informal|relaxed|laid[- ]back|chill|conversational|light[- ]hearted|playful)\b/gi,
  friendly: /\b(?:friendly|warmly|warm(?!\s+(?:intro|introduction|lead|leads|up))|upbeat|enthusiastic|cheerful|personable)\b/gi,
  direct:
    /\b(?:direct(?!\s+(?:reports?|mail|message|line|debit|deposit|competitors?|sales|link))|directly|straightforward|to the point|blunt|no[- ]fluff|punchy|no small talk|get to the point|cut to the chase)\b/gi,
};

export function detectTone(text: string): Tone {
  let best: { tone: Tone; index: number } | null = null;
  for (const [tone, re] of Object.entries(TONE_PATTERNS) as [Exclude<Tone, 'neutral'>, RegExp][]) {
    const m = firstMatch(text, re);
    if (m && (!best || m.index < best.index)) best = { tone, index: m.index };
  }
  if (best) return best.tone;
  // "not too formal" with nothing else said reads as friendly; "don't be too casual" as formal.
  if (hasNegatedMatch(text, TONE_PATTERNS.formal)) return 'friendly';
  if (hasNegatedMatch(text, TONE_PATTERNS.casual)) return 'formal';
  return 'neutral';
}

const LENGTH_PATTERNS: Record<Exclude<Length, 'medium'>, RegExp> = {
  short: new RegExp(
    String.raw`\b(?:short|shorter|brief|briefly|concise|succinct|quick|terse|compact|tight|(?:one|two|three|four|[1-4]) (?:short )?(?:sentences|lines)|one paragraph|(?:under|less than|fewer than|no more than|max(?:imum)?(?: of)?) \d+ words)\b(?![\s-]+(?:\d+[\s-]*min\w*[\s-]+)?${ASK_NOUN})`,
    'gi',
  ),
  detailed:
    /\b(?:detailed|thorough|in[- ]depth|comprehensive|elaborate|longer|long[- ]form|extensive|(?:explain|go) in(?:to)? (?:more )?detail|several paragraphs|long (?:email|message|note))\b/gi,
};

export function detectLength(text: string): Length {
  const short = firstMatch(text, LENGTH_PATTERNS.short);
  const detailed = firstMatch(text, LENGTH_PATTERNS.detailed);
  if (short && (!detailed || short.index <= detailed.index)) return 'short';
  if (detailed) return 'detailed';
  return 'medium';
}
