/** The body's paragraphs: which sentences an intro or a follow-up step carries, and in what order, for the length asked. */
import type { Person } from './contact.js';
import type { InstructionProfile } from './instructions.js';
import { askSentence, fitSentence, openingSentences, pleasantry, pointSentence, topicSentence } from './sentences.js';
import { closingLine, signOff } from './sign-off.js';
import { pick } from './text.js';

export function composeIntro(profile: InstructionProfile, p: Person, seed: string, sender: string): string[] {
  const { tone, length } = profile;
  const paragraphs: string[] = [];
  const openingCount = length === 'short' ? 1 : length === 'detailed' ? 3 : 2;
  const opening = openingSentences(profile, p, seed, openingCount);
  const lead = opening.length > 0 ? opening : length === 'short' ? [] : [pleasantry(tone, seed)].filter(Boolean);
  if (lead.length > 0) paragraphs.push(lead.join(' '));

  const value: string[] = [];
  if (profile.topic) value.push(topicSentence(profile.topic, tone));
  else if (profile.facts.length > 0) value.push(profile.facts[0]!);
  else {
    value.push(
      tone === 'formal'
        ? `I am reaching out because I believe there may be a good fit between our work and ${p.company ? `${p.company}'s priorities` : 'your priorities'}.`
        : `I'm reaching out because I think there could be a good fit between what we do and ${p.company ? `what ${p.company} is working on` : "what you're working on"}.`,
    );
  }
  const benefits = length === 'short' ? profile.benefits.slice(0, 1) : profile.benefits;
  value.push(...benefits);
  if (length !== 'short') {
    const facts = profile.topic ? profile.facts : profile.facts.slice(1);
    value.push(...facts.slice(0, length === 'detailed' ? 3 : 2));
  }
  const openingMentionsRole = p.role !== '' && opening.some((s) => s.includes(p.role));
  const fit = openingMentionsRole ? '' : fitSentence(p, tone, seed);
  if (fit && (length !== 'short' || (profile.benefits.length === 0 && !opening.some((s) => p.company && s.includes(p.company))))) {
    value.push(fit);
  }
  paragraphs.push(value.join(' '));

  if (length !== 'short' && profile.points.length > 0) {
    paragraphs.push(profile.points.map((point) => pointSentence(point, tone, seed)).join(' '));
  }
  if (length === 'detailed') {
    const usage = profile.topic ? 'are using it' : 'work with us';
    paragraphs.push(
      [
        tone === 'formal'
          ? `I would be glad to share how teams similar to ${p.company || 'yours'} ${usage}, what the first few weeks typically look like, and what it would take to get started.`
          : `Happy to share how teams similar to ${p.company || 'yours'} ${usage}, what the first few weeks usually look like, and what it would take to get started.`,
        p.role
          ? `And if the timing isn't right, I'd still value your perspective as ${p.role}.`
          : "And if the timing isn't right, I'd still value your perspective.",
      ].join(' '),
    );
  }

  const ask = [askSentence(profile, p, 0)];
  if (length !== 'short') {
    const closing = closingLine(tone);
    if (closing) ask.push(closing);
  }
  paragraphs.push(ask.join(' '));
  paragraphs.push(signOff(tone, sender));
  return paragraphs;
}

export function composeFollowUp(
  profile: InstructionProfile,
  p: Person,
  seed: string,
  sender: string,
  step: number,
  totalSteps: number | undefined,
): string[] {
  const { tone } = profile;
  const about = profile.topic && profile.topic.phrase.length <= 90 ? ` about ${profile.topic.phrase}` : '';
  const last = totalSteps !== undefined ? step >= totalSteps - 1 : step >= 3;
  const paragraphs: string[] = [];

  if (last && step > 1) {
    paragraphs.push(
      tone === 'formal'
        ? `I have not heard back, so I will assume the timing is not right${p.company ? ` for ${p.company}` : ''} and will not follow up further.`
        : `I haven't heard back, so I'll assume the timing isn't right${p.company ? ` for ${p.company}` : ''} and won't keep filling your inbox.`,
    );
    paragraphs.push(
      profile.topic
        ? `If you ever want to take a look at ${profile.topic.phrase}, just reply here and I'll pick it up from there.`
        : "If anything changes, just reply here and I'll pick it up from there.",
    );
  } else if (step === 1) {
    const opener =
      tone === 'formal'
        ? `I wanted to follow up on my previous note${about}.`
        : pick(seed, 'fu1', [`Just following up on my note from a few days ago${about}.`, `Quick follow-up on my earlier note${about}.`]);
    paragraphs.push([opener, profile.benefits[0] ?? ''].filter(Boolean).join(' '));
    paragraphs.push(askSentence(profile, p, step));
  } else {
    const angle =
      profile.points[0] !== undefined
        ? pointSentence(profile.points[0], tone, seed)
        : profile.facts[0] ??
          (p.role
            ? `As ${p.role}${p.company ? ` at ${p.company}` : ''}, you're probably close to this, but if someone else owns it I'd appreciate a pointer.`
            : profile.benefits[1] ?? profile.benefits[0] ?? '');
    paragraphs.push(
      [
        tone === 'formal'
          ? `I understand things get busy${p.company ? ` at ${p.company}` : ''}, so I will keep this brief.`
          : `I know things get busy${p.company ? ` at ${p.company}` : ''}, so I'll keep this short.`,
        angle,
      ]
        .filter(Boolean)
        .join(' '),
    );
    paragraphs.push(askSentence(profile, p, step));
  }
  paragraphs.push(signOff(tone, sender));
  return paragraphs;
}
