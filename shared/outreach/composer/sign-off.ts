/** How the email ends: the closing line before the sign-off, the sign-off for the tone and the sender's name. */
import type { DraftInput } from '../drafter.js';
import type { Tone } from './style.js';
import { clean } from './text.js';

export function senderName(sender: DraftInput['sender']): string {
  const name = clean(sender.name);
  if (name) return name;
  return clean(sender.email).split('@')[0] || clean(sender.email);
}

export function closingLine(tone: Tone): string {
  return {
    formal: 'Thank you for your time and consideration.',
    casual: 'No pressure either way.',
    friendly: 'Looking forward to hearing from you!',
    direct: '',
    neutral: 'Thanks for considering it.',
  }[tone];
}

export function signOff(tone: Tone, name: string): string {
  const words: Record<Tone, string> = {
    formal: 'Kind regards,',
    casual: 'Cheers,',
    friendly: 'Warm regards,',
    direct: 'Thanks,',
    neutral: 'Best,',
  };
  return `${words[tone]}\n${name}`;
}
