/** The call to action the instructions want: a demo, a call, a meeting, an intro, an event place or a reply, with its length and timing. */
import { firstMatch } from './negation.js';
import { capFirst } from './text.js';

export type AskKind = 'demo' | 'call' | 'meeting' | 'intro' | 'event' | 'reply';

export interface Ask {
  kind: AskKind;
  duration?: string;
  timeframe?: string;
}

export const ASK_NOUN = String.raw`(?:call|chat|meeting|demo|intro|sync|conversation|question|catch[- ]up|walk[- ]?through|coffee|session)`;

const ASK_PATTERNS: [AskKind, RegExp][] = [
  ['demo', /\b(?:demo(?:s|nstration)?|walk[- ]?through|product tour)\b/gi],
  [
    'call',
    /\b(?:call(?!\s+out\b)|phone|zoom|(?:quick|short|brief|a|an|\d+[\s-]*min(?:ute)?s?)[\s-]+(?:chat|conversation|catch[- ]up|sync))\b/gi,
  ],
  ['meeting', /\b(?:meeting|meet(?!\s+(?:their|the|your|its)\s+(?:needs|requirements|deadlines?|goals|targets))|coffee|sit[- ]down)\b/gi],
  [
    'intro',
    /\b(?:(?:intro(?:duction)?|refer(?:ral)?|point (?:me|us))\s+(?:to|towards)\s+(?:the\s+)?(?:right|relevant|best|appropriate)|(?:right|best|relevant|appropriate) person|referral|who (?:owns|handles|is responsible for)|forward (?:this|it|my (?:email|note)))\b/gi,
  ],
  ['event', /\binvit(?:e|ing)\s+(?:them|him|her|the (?:recipient|prospect|contact))\s+to\b/gi],
  ['reply', /\b(?:reply|respond|response|let (?:me|us) know|thoughts|feedback)\b/gi],
];

export function detectAsk(text: string): Ask {
  let kind: AskKind = 'reply';
  let kindIndex = -1;
  for (const [candidate, re] of ASK_PATTERNS) {
    const m = firstMatch(text, re);
    if (m) {
      kind = candidate;
      kindIndex = m.index;
      break;
    }
  }
  const ask: Ask = { kind };
  if (kind === 'call' || kind === 'meeting' || kind === 'demo') {
    const durations: { index: number; value: string }[] = [];
    for (const m of text.matchAll(/\b(\d{1,3})[\s-]*(?:min|mins|minute|minutes)\b/gi)) {
      durations.push({ index: m.index, value: `${Number(m[1])}-minute` });
    }
    for (const m of text.matchAll(/\bhalf[\s-]an[\s-]hour\b/gi)) durations.push({ index: m.index, value: '30-minute' });
    for (const m of text.matchAll(/\b(?:an|one|1)[\s-]hour\b/gi)) durations.push({ index: m.index, value: 'one-hour' });
    // A duration belongs to the ask only when it sits next to it ("a 15-minute call", "a call (20 min)").
    const near = durations
      .filter((d) => Math.abs(d.index - kindIndex) <= 40)
      .sort((a, b) => Math.abs(a.index - kindIndex) - Math.abs(b.index - kindIndex))[0];
    if (near) ask.duration = near.value;
    const timeframe =
      /\b(?:later this|early next|this|next)\s+(?:week|month|quarter)\b|\b(?:in the\s+)?coming (?:days|weeks)\b|\btomorrow\b/i.exec(text) ??
      /\b(?:monday|tuesday|wednesday|thursday|friday)\b/i.exec(text);
    if (timeframe) {
      const value = timeframe[0].toLowerCase();
      if (/^(?:monday|tuesday|wednesday|thursday|friday)$/.test(value)) ask.timeframe = `on ${capFirst(value)}`;
      else ask.timeframe = value.replace(/^coming/, 'in the coming');
    }
  }
  return ask;
}
