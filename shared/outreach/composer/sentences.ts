/** The sentences of a draft, each chosen for the tone: greeting, opening, topic, fit, points and the ask. */
import type { Person } from './contact.js';
import type { Point, Topic, TopicLead } from './content.js';
import { contextClauses, contextSentence } from './context.js';
import type { InstructionProfile } from './instructions.js';
import type { Tone } from './style.js';
import { asSentence, dedupe, lowerFirst, pick } from './text.js';

export function greeting(p: Person, tone: Tone): string {
  switch (tone) {
    case 'formal':
      return `Dear ${p.first},`;
    case 'casual':
      return `Hey ${p.first},`;
    case 'friendly':
      return `Hi ${p.first}!`;
    default:
      return `Hi ${p.first},`;
  }
}

export function pleasantry(tone: Tone, seed: string): string {
  switch (tone) {
    case 'formal':
      return 'I hope this message finds you well.';
    case 'casual':
      return pick(seed, 'pleasantry', ["Hope you're having a good week.", "Hope things are good on your end."]);
    case 'friendly':
      return pick(seed, 'pleasantry', ['I hope your week is off to a great start!', "I hope you're having a great week!"]);
    case 'direct':
      return '';
    default:
      return "I hope you're doing well.";
  }
}

export function openingSentences(profile: InstructionProfile, p: Person, seed: string, count: number): string[] {
  const tone = profile.tone;
  const out: string[] = [];
  if (profile.congratulate) {
    out.push(`${tone === 'casual' ? 'Congrats' : 'Congratulations'} on ${profile.congratulate}${tone === 'formal' ? '.' : '!'}`);
  }
  if (profile.reference) {
    out.push(`${pick(seed, 'ref', ['I came across your', 'I noticed your'])} ${profile.reference} and wanted to reach out.`);
  }
  const clauses = contextClauses(p.context);
  for (const clause of clauses) {
    if (out.length >= count) break;
    const sentence = contextSentence(clause, p, seed, tone);
    if (sentence) out.push(sentence);
  }
  // Notes that are only noun phrases ("Series C logistics company, 800 employees") still get used once.
  if (out.length === 0 && clauses.length > 0) {
    out.push(`I was reading up on ${p.company || 'your work'} (${lowerFirst(clauses.slice(0, 2).join('; '))}).`);
  }
  if (out.length === 0 && p.role) {
    out.push(`I came across your work as ${p.role}${p.company ? ` at ${p.company}` : ''}.`);
  } else if (out.length === 0 && p.hasProfile) {
    out.push(`I came across your profile${p.company ? ` and what you're doing at ${p.company}` : ''}.`);
  }
  return dedupe(out).slice(0, Math.max(count, 1));
}

export function topicSentence(topic: Topic, tone: Tone): string {
  const t = topic.phrase;
  const table: Record<TopicLead, Record<Tone, string>> = {
    introduce: {
      formal: `I am writing to introduce ${t}.`,
      casual: `Wanted to tell you about ${t}.`,
      friendly: `I'd love to introduce you to ${t}.`,
      direct: `I'm reaching out to introduce ${t}.`,
      neutral: `I wanted to introduce ${t}.`,
    },
    offer: {
      formal: `I would like to offer you ${t}.`,
      casual: `Wanted to offer you ${t}.`,
      friendly: `I'd love to offer you ${t}.`,
      direct: `I'd like to offer you ${t}.`,
      neutral: `I wanted to offer you ${t}.`,
    },
    invite: {
      formal: `I would like to invite you to ${t}.`,
      casual: `Wanted to invite you to ${t}.`,
      friendly: `I'd love to invite you to ${t}.`,
      direct: `You're invited to ${t}.`,
      neutral: `I wanted to invite you to ${t}.`,
    },
    share: {
      formal: `I would like to share ${t} with you.`,
      casual: `Wanted to share ${t} with you.`,
      friendly: `I'd love to share ${t} with you.`,
      direct: `Sharing ${t} with you.`,
      neutral: `I wanted to share ${t} with you.`,
    },
    about: {
      formal: `I am writing regarding ${t}.`,
      casual: `Wanted to reach out about ${t}.`,
      friendly: `I'm reaching out about ${t}.`,
      direct: `I'm reaching out about ${t}.`,
      neutral: `I wanted to reach out about ${t}.`,
    },
  };
  return asSentence(table[topic.lead][tone]);
}

export function fitSentence(p: Person, tone: Tone, seed: string): string {
  if (p.role && p.company) {
    return tone === 'formal'
      ? `Given your role as ${p.role} at ${p.company}, I believe it may be relevant to you.`
      : `Given your role as ${p.role} at ${p.company}, I thought it might be relevant.`;
  }
  if (p.role) return `Given your role as ${p.role}, I thought it might be relevant.`;
  if (p.company) {
    return pick(seed, 'fit', [
      `I think it could be a strong fit for ${p.company}.`,
      `I think it could be relevant for the team at ${p.company}.`,
    ]);
  }
  return '';
}

export function pointSentence(point: Point, tone: Tone, seed: string): string {
  if (point.kind === 'noun') {
    const np = point.phrase;
    return tone === 'formal'
      ? `I would also like to mention ${np}.`
      : pick(seed, `np-${np}`, [`It's also worth mentioning ${np}.`, `I should also mention ${np}.`]);
  }
  if (tone === 'direct') return point.phrase;
  return `${pick(seed, `pt-${point.phrase}`, ['For context,', 'Worth noting:'])} ${lowerFirst(point.phrase)}`;
}

export function askSentence(profile: InstructionProfile, p: Person, step: number): string {
  const { kind, duration, timeframe } = profile.ask;
  const tone = profile.tone;
  const when = timeframe ? ` ${timeframe}` : '';
  const size = duration ? `${duration} ` : step > 0 || profile.length === 'short' ? 'quick ' : 'short ';
  const article = /^[aeiou8]/i.test(size) || /^(?:11|18)-/.test(size) ? 'an' : 'a';
  const forCompany = p.company ? ` for ${p.company}` : '';
  switch (kind) {
    case 'demo':
      return {
        formal: `Would you be available for ${article} ${size}demo${when}? I would tailor it to ${p.company || 'your needs'}.`,
        casual: `Up for ${article} ${size}demo${when}? I'll keep it focused on ${p.company || 'what matters to you'}.`,
        friendly: `Would you be open to ${article} ${size}demo${when}? I'd tailor it to ${p.company || 'your team'}.`,
        direct: `Can I show you ${article} ${size}demo${when}?`,
        neutral: `Would you be open to ${article} ${size}demo${when}?`,
      }[tone];
    case 'call':
      return {
        formal: `Would you be available for ${article} ${size}call${when}?`,
        casual: `Up for ${article} ${size}call${when}?`,
        friendly: `Would you be open to ${article} ${size}call${when}? I'd love to hear how you're approaching this today.`,
        direct: `Can we set up ${article} ${size}call${when}?`,
        neutral: `Would you be open to ${article} ${size}call${when}?`,
      }[tone];
    case 'meeting':
      return {
        formal: `Would you be available to meet${duration ? ` for ${article} ${duration} conversation` : ''}${when}?`,
        casual: `Want to grab ${duration ? `${article} ${duration} ` : 'a quick '}meeting${when}?`,
        friendly: `Would you be open to meeting${duration ? ` for ${article} ${duration} chat` : ''}${when}? It would be great to connect.`,
        direct: `Can we meet${duration ? ` for ${duration.replace(/-minute$/, ' minutes')}` : ''}${when}?`,
        neutral: `Would you be open to meeting${duration ? ` for ${article} ${duration} conversation` : ''}${when}?`,
      }[tone];
    case 'intro':
      return {
        formal: `If this falls outside your remit, could you kindly point me to the right person${p.company ? ` at ${p.company}` : ''}?`,
        casual: `If this isn't your area, mind pointing me to whoever owns it${p.company ? ` at ${p.company}` : ''}?`,
        friendly: `If this isn't on your plate, would you mind pointing me to the right person${p.company ? ` at ${p.company}` : ''}?`,
        direct: `Who is the right person to talk to about this${p.company ? ` at ${p.company}` : ''}?`,
        neutral: `If you're not the right person, could you point me to whoever is${p.company ? ` at ${p.company}` : ''}?`,
      }[tone];
    case 'event':
      return {
        formal: 'Would you like me to reserve a place for you?',
        casual: 'Want me to save you a spot?',
        friendly: "Would you like me to save you a spot? I'd love to see you there.",
        direct: 'Should I save you a spot?',
        neutral: 'Would you like me to save you a spot?',
      }[tone];
    default:
      return {
        formal: `Would this be of interest${forCompany}? I would welcome your reply.`,
        casual: `Worth a look${forCompany}? Just hit reply either way.`,
        friendly: `Would this be helpful${forCompany}? I'd love to hear your thoughts.`,
        direct: `Is this relevant${forCompany}? A one-line reply is plenty.`,
        neutral: `Would this be relevant${forCompany}? A quick reply either way would be great.`,
      }[tone];
  }
}
