/** The subject line: a short personalised one for the intro, the thread's own ("Re: …") for follow-ups. */
import { MAX_SUBJECT_LENGTH } from '../drafter.js';
import type { Person } from './contact.js';
import type { InstructionProfile } from './instructions.js';
import { capFirst, clean, lowerFirst, pick, stripEndPunctuation, truncateWords, wordCount } from './text.js';

/**
 * Short label for subjects: the topic up to its first clause break, without a leading "our/the/a",
 * capitalised; empty when it would need cutting mid-phrase (a truncated label reads worse than none).
 */
function topicLabel(profile: InstructionProfile, max: number): string {
  if (!profile.topic) return '';
  let label = profile.topic.phrase.replace(/^(?:our|my|the|a|an|this|some)\s+/i, '');
  const clause = /,|\s+(?:and|or|whether|so|because|which|that|to see|so that)\s+/i.exec(label);
  if (clause && wordCount(label.slice(0, clause.index)) >= 2) label = label.slice(0, clause.index);
  // Trailing prepositional phrases can go without breaking a noun phrase ("webinar on X for Y on March 14").
  while (label.length > max && !/^(?:how|why|what|whether|when|where|who)\b/i.test(label)) {
    const cuts = [...label.matchAll(/\s+(?:for|on|in|at|with|by|from|to|across|about)\s+/gi)];
    const last = cuts[cuts.length - 1];
    if (!last || wordCount(label.slice(0, last.index)) < 2) break;
    label = label.slice(0, last.index);
  }
  return label.length <= max ? capFirst(stripEndPunctuation(label)) : '';
}

const LABEL_MAX = 48;

export function introSubject(profile: InstructionProfile, p: Person, seed: string): string {
  const { tone } = profile;
  const label = topicLabel(profile, LABEL_MAX);
  if (!profile.topic || label === '' || /^(?:how|why|what|whether|when|where|who)\b/i.test(label)) {
    const options = p.company
      ? [`${p.first}, a quick idea for ${p.company}`, `Idea for ${p.company}`, `${p.first} <> ${p.company}`]
      : [`Quick question, ${p.first}`, `${p.first}, a quick idea`];
    return truncateWords(tone === 'formal' ? `A note for ${p.first}${p.company ? ` at ${p.company}` : ''}` : pick(seed, 'subject', options), MAX_SUBJECT_LENGTH);
  }
  const lead = profile.topic.lead;
  const subject = (() => {
    if (lead === 'invite') return `${p.first}, an invitation: ${lowerFirst(label)}`;
    if (lead === 'about') return `${p.first}, quick question about ${lowerFirst(label)}`;
    if (profile.ask.kind === 'demo' && p.company) return `${label} demo for ${p.company}?`;
    if (p.company) {
      return tone === 'casual' || tone === 'friendly'
        ? `${p.first}, ${lowerFirst(label)} for ${p.company}?`
        : `${label} for ${p.company}`;
    }
    return `${p.first}, a quick note on ${lowerFirst(label)}`;
  })();
  return truncateWords(subject, MAX_SUBJECT_LENGTH);
}

function stripReplyPrefix(subject: string): string {
  return subject.replace(/^(?:\s*(?:re|aw|sv|fw|fwd)\s*:\s*)+/i, '').trim();
}

export function followUpSubject(previous: string | undefined, intro: string): string {
  const base = stripReplyPrefix(clean(previous) || intro);
  return `Re: ${truncateWords(base, MAX_SUBJECT_LENGTH - 4)}`;
}
