/**
 * What the instructions ask the email to say: the topic, benefit clauses, points to mention, facts about
 * the sender and something to congratulate or reference. Each is cut out of the instructions at its
 * clause boundary and rewritten to address the recipient, never quoted whole.
 */
import { ASK_NOUN } from './ask.js';
import { firstMatch, isNegated } from './negation.js';
import { asSentence, clean, dedupe, escapeRegExp, stripEndPunctuation, toSecondPerson, truncateWords, wordCount } from './text.js';

export type TopicLead = 'introduce' | 'offer' | 'invite' | 'share' | 'about';

export interface Topic {
  phrase: string;
  lead: TopicLead;
}

export interface Point {
  phrase: string;
  kind: 'clause' | 'noun';
}

const RECIPIENT_NOUN = String.raw`(?:the\s+(?:recipient|prospect|contact|lead|person))`;
const OBJECT_PRONOUN = String.raw`(?:them|him|her|${RECIPIENT_NOUN})`;

const FOLLOWING_VERB = String.raw`(?:introduce|introducing|pitch|pitching|present|presenting|discuss|discussing|explain|explaining|tell|telling|ask|asks|asking|propose|proposing|suggest|suggesting|request|requesting|invite|inviting|offer|offering|mention|mentioning|highlight|highlighting|keep|keeping|make|making|end|ending|close|closing|include|including|book|booking|schedule|scheduling|get|see|find|set|push|focus|emphasi[sz]e|explain|say|tell|use|reference|referencing|note|noting|point|try|avoid|don't|do|sign|thank|congratulate|add|finish|wrap|express|show|share|stress|encourage|check|let|request|see if|gauge|follow)`;

const BENEFIT_VERBS = String.raw`(?:helps?|lets?|cuts?|reduces?|saves?|automates?|makes?|gets?|enables?|allows?|speeds?\s+up|turns?|gives?|handles?|removes?|eliminates?|shortens?|boosts?|increases?|improves?|streamlines?|simplifies?|replaces?|connects?|syncs?|tracks?|monitors?|prevents?|protects?|finds?|generates?|doubles?|halves?|catches?)`;

const PHRASE_STOPS: RegExp[] = [
  /[.;!?](?=\s|$)|\n| [-–—] | -- |:\s/,
  // A benefit clause is read separately (detectBenefits), not as part of the topic.
  new RegExp(String.raw`,?\s+(?:which|that|it)\s+(?:can\s+|will\s+|could\s+)?${BENEFIT_VERBS}\b`, 'i'),
  new RegExp(String.raw`,?\s+(?:and|then|but|while|so|also|plus)\s+(?:also\s+|then\s+)?${FOLLOWING_VERB}\b`, 'i'),
  new RegExp(String.raw`,\s*(?:and\s+)?${FOLLOWING_VERB}\b`, 'i'),
  /\s+(?:to|in order to)\s+(?:ask|see|book|schedule|set up|get|request|propose|find out|gauge|check|learn)\b/i,
  /,?\s+(?:in|with|using)\s+(?:a|an)\s+(?:[\w-]+,?\s+){0,3}(?:tone|voice|style|manner|way)\b/i,
  /,?\s+(?:keep(?:ing)? it|make it|be (?:brief|short|friendly|formal|casual|direct|concise))\b/i,
  new RegExp(String.raw`\s+(?:to|for|with)\s+${OBJECT_PRONOUN}(?=\W|$)`, 'i'),
  /,?\s+(?:briefly|quickly|concisely|politely|casually|formally|warmly|directly)\b/i,
  /\s+in (?:one|two|three|four|\d+) (?:short )?(?:sentences?|paragraphs?|lines?)\b/i,
  /\s+(?:in )?(?:under|less than|fewer than) \d+ words\b/i,
  /\s+\((?:e\.g\.|i\.e\.|like|see)[^)]*\)?/i,
];

/** Words that mark a phrase as being about the email itself rather than its content. */
const META_WORDS = /\b(?:email|e-mail|subject line|tone|sentences?|paragraphs?|word count|draft|cta)\b/i;

/**
 * The phrase starting at the beginning of `text`, up to the end of its clause, with recipient
 * references rewritten as "you". Empty when what is left is about the email rather than its content.
 */
function cutPhrase(text: string, firstName?: string, maxLength = 140): string {
  let phrase = text;
  for (const stop of PHRASE_STOPS) {
    const m = stop.exec(phrase);
    if (m) phrase = phrase.slice(0, m.index);
  }
  phrase = toSecondPerson(phrase, firstName);
  const meta = META_WORDS.exec(phrase);
  if (meta) phrase = phrase.slice(0, meta.index).replace(/\s+(?:in|with|of|for|to|the|a|an|this|that|and|via|by)\s*$/i, '');
  phrase = stripEndPunctuation(clean(phrase));
  if (phrase.length > maxLength) {
    const comma = phrase.lastIndexOf(',', maxLength);
    phrase = comma > 20 ? phrase.slice(0, comma) : truncateWords(phrase, maxLength);
  }
  return /^(?:a|an|the|our|my|your|this|that|some|it)?$/i.test(phrase) ? '' : phrase;
}

const TOPIC_PATTERNS: [TopicLead, RegExp][] = [
  ['introduce', /\b(?:introduc(?:e|es|ing)|present(?:s|ing)?)\s+(?!(?:me|us|myself|ourselves|yourself|them|him|her)\b)/gi],
  ['offer', /\boffer(?:s|ing)?\s+(?:them\s+|him\s+|her\s+)?(?!to\b)/gi],
  ['invite', new RegExp(String.raw`\binvit(?:e|es|ing)\s+${OBJECT_PRONOUN}\s+to\s+`, 'gi')],
  ['share', /\b(?:shar(?:e|es|ing)|showcas(?:e|es|ing)|announc(?:e|es|ing))\s+(?!(?:with|your|their)\b)/gi],
  [
    'about',
    new RegExp(
      String.raw`\b(?:pitch(?:es|ing)?|promot(?:e|es|ing)|sell(?:s|ing)?|tell(?:s|ing)?\s+${OBJECT_PRONOUN}\s+about|talk(?:s|ing)?\s+about|discuss(?:es|ing)?|explain(?:s|ing)?|about|regarding|concerning|on the topic of|(?:email|message|note|outreach)\s+(?:for|on)(?=\s+(?:our|my|the)\b))\s+`,
      'gi',
    ),
  ],
];

const ASK_AS_TOPIC = new RegExp(
  String.raw`^(?:a|an|some)\s+(?:(?:quick|short|brief|free|\d+[\s-]*min\w*|one-hour|half-hour)[\s-]+)*${ASK_NOUN}s?$`,
  'i',
);

export function detectTopic(text: string, firstName: string): Topic | undefined {
  for (const [lead, re] of TOPIC_PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (isNegated(text, m.index)) continue;
      const phrase = cutPhrase(text.slice(m.index + m[0].length), firstName);
      if (phrase === '' || ASK_AS_TOPIC.test(phrase)) continue;
      // "about" needs something substantial after it: "ask about it" is not a topic.
      if (lead === 'about' && (wordCount(phrase) < 2 || /^(?:it|this|that|you|your)\b$/i.test(phrase))) continue;
      // "Pitch our recruiting service" / "tell them about our new pricing" read best as an introduction.
      if (lead === 'about' && /^(?:our|my)\s/i.test(phrase)) return { phrase, lead: 'introduce' };
      return { phrase, lead };
    }
  }
  return undefined;
}

function thirdPersonVerb(verb: string): string {
  const [head, ...rest] = verb.split(/\s+/);
  const word = head!;
  let inflected: string;
  if (/s$/i.test(word) && !/ss$/i.test(word)) inflected = word;
  else if (/(?:s|sh|ch|x|z|o)$/i.test(word)) inflected = `${word}es`;
  else if (/[^aeiou]y$/i.test(word)) inflected = `${word.slice(0, -1)}ies`;
  else inflected = `${word}s`;
  return [inflected, ...rest].join(' ');
}

export function detectBenefits(text: string, firstName: string): string[] {
  const benefits: string[] = [];
  const re = new RegExp(String.raw`\b(?:which|that|it)\s+((?:can|will|could)\s+)?(${BENEFIT_VERBS})\b`, 'gi');
  for (const m of text.matchAll(re)) {
    const rest = cutPhrase(text.slice(m.index + m[0].length), firstName);
    if (rest === '') continue;
    const modal = m[1] ? m[1].trim().toLowerCase() + ' ' : '';
    const verb = modal ? m[2]!.toLowerCase() : thirdPersonVerb(m[2]!.toLowerCase());
    benefits.push(`It ${modal}${verb} ${rest}.`);
  }
  const we = new RegExp(
    String.raw`\bwe\s+((?:help|work with|support|serve|partner with|speciali[sz]e in|save|cut|reduce)\b)`,
    'gi',
  );
  for (const m of text.matchAll(we)) {
    if (/\b(?:that|mention|highlight|note|stress|emphasi[sz]e)\s*$/i.test(text.slice(Math.max(0, m.index - 25), m.index))) {
      continue;
    }
    const rest = cutPhrase(text.slice(m.index + m[0].length), firstName);
    if (rest !== '') benefits.push(`We ${m[1]!.toLowerCase()} ${rest}.`);
  }
  return dedupe(benefits).slice(0, 3);
}

const CLAUSE_START = /^(?:we|we're|we've|our\s+\S+(?:\s+\S+)?\s+(?:is|are|has|have|was|were|can|will|\w+s)|i|i'm|i've|it|it's|you|you're|your\s+\S+\s+(?:is|are|has|have|can|will)|there)\b/i;

export function detectPoints(text: string, firstName: string): { points: Point[]; reference?: string } {
  const points: Point[] = [];
  let reference: string | undefined;
  const owner = ['their', 'his', 'her', "the (?:recipient|prospect|contact)'s", ...(firstName ? [`${escapeRegExp(firstName)}'s`] : [])];
  const refRe = new RegExp(
    String.raw`\b(?:reference|mention|acknowledge|bring up|note|refer to)\s+(?:${owner.join('|')})\s+`,
    'gi',
  );
  const refMatch = firstMatch(text, refRe);
  if (refMatch) {
    const phrase = cutPhrase(text.slice(refMatch.index + refMatch[0].length), firstName, 100);
    if (phrase) reference = phrase;
  }
  const re = /\b(?:mention(?:ing)?|highlight(?:ing)?|emphasi[sz](?:e|ing)|stress(?:ing)?|point(?:ing)? out|note\s+that|noting\s+that)\s+(that\s+)?/gi;
  for (const m of text.matchAll(re)) {
    if (isNegated(text, m.index) || (refMatch && m.index === refMatch.index)) continue;
    const phrase = cutPhrase(text.slice(m.index + m[0].length), firstName);
    if (phrase === '') continue;
    const point = m[1] || CLAUSE_START.test(phrase) ? { phrase: asSentence(phrase), kind: 'clause' as const } : { phrase, kind: 'noun' as const };
    if (!points.some((p) => p.phrase.toLowerCase() === point.phrase.toLowerCase())) points.push(point);
  }
  return { points: points.slice(0, 3), ...(reference ? { reference } : {}) };
}

export function detectCongratulations(text: string, firstName: string): string | undefined {
  const m = firstMatch(text, /\bcongratulat\w*\s+(?:[\w']+\s+){0,2}?(?:on|for)\s+/gi);
  if (!m) return undefined;
  const phrase = cutPhrase(text.slice(m.index + m[0].length), firstName, 100);
  return phrase || undefined;
}

/** Declarative first-person sentences in the instructions ("We just opened a Berlin office."). */
export function detectFacts(text: string, firstName: string): string[] {
  const facts: string[] = [];
  for (const raw of text.split(/(?<=[.!?])\s+|\n+/)) {
    const s = clean(raw);
    if (!/^(?:we|we're|we've|our|i'm|i've|i)\b/i.test(s)) continue;
    if (/^(?:i|we)\s+(?:want|need|would like|'d like|am looking for)\b/i.test(s)) continue;
    if (META_WORDS.test(s) || /\b(?:write|draft|compose|you should|make sure)\b/i.test(s)) continue;
    if (wordCount(s) < 3 || s.length > 200) continue;
    facts.push(asSentence(toSecondPerson(stripEndPunctuation(s), firstName)));
  }
  return facts.slice(0, 3);
}
