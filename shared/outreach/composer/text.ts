/** Plain-text helpers for the composer: cleaning, casing, cutting, deterministic choice and the switch to second person. */

export function clean(value: string | undefined | null): string {
  return (value ?? '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function capFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Lower-cases the first letter unless the first word is an acronym or a proper noun-looking token. */
export function lowerFirst(text: string): string {
  const firstWord = /^\S+/.exec(text)?.[0] ?? '';
  if (firstWord.length > 1 && firstWord.slice(1) !== firstWord.slice(1).toLowerCase()) return text;
  if (/^I\b/.test(text)) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function asSentence(text: string, end = '.'): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return /[.!?]$/.test(trimmed) ? capFirst(trimmed) : `${capFirst(trimmed)}${end}`;
}

export function stripEndPunctuation(text: string): string {
  return text.replace(/[\s.,;:!?'"“”‘’)(-]+$/u, '').replace(/^[\s'"“”‘’(-]+/u, '');
}

/** FNV-1a 32-bit, for deterministic phrasing choices. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function pick<T>(seed: string, salt: string, options: readonly T[]): T {
  return options[hash(`${seed}|${salt}`) % options.length]!;
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Cuts `text` to at most `max` characters at a word boundary, dropping dangling joiners. */
export function truncateWords(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max + 1);
  const lastSpace = cut.lastIndexOf(' ');
  cut = lastSpace > 0 ? cut.slice(0, lastSpace) : text.slice(0, max);
  const joiners = /\s+(?:and|or|of|for|to|the|a|an|with|on|in|at|by|your|our|my|from|how|that|—|-|–|&)$/i;
  while (joiners.test(cut)) cut = cut.replace(joiners, '');
  return stripEndPunctuation(cut);
}

export function dedupe(items: string[]): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = item.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Third-person references to the recipient, rewritten as second person. */
export function toSecondPerson(text: string, firstName?: string): string {
  let out = text;
  const swap = (re: RegExp, to: string) => {
    out = out.replace(re, (m) => (/^[A-Z]/.test(m) ? capFirst(to) : to));
  };
  if (firstName) {
    swap(new RegExp(String.raw`\b${escapeRegExp(firstName)}'s\b`, 'g'), 'your');
  }
  swap(/\bthe (?:recipient|prospect|contact|lead)'s\b/gi, 'your');
  swap(/\bthe (?:recipient|prospect|contact)\b/gi, 'you');
  swap(/\bthemselves\b/gi, 'yourselves');
  swap(/\btheirs\b/gi, 'yours');
  swap(/\btheir\b/gi, 'your');
  swap(/\bthey're\b/gi, "you're");
  swap(/\bthey've\b/gi, "you've");
  swap(/\bthey'll\b/gi, "you'll");
  swap(/\bthey'd\b/gi, "you'd");
  swap(/\bthey\b/gi, 'you');
  swap(/\bthem\b/gi, 'you');
  swap(/\bhis\b/gi, 'your');
  swap(/\bhim\b/gi, 'you');
  out = out.replace(/\bher\b(\s+)(\w+)/gi, (m, space: string, next: string) => {
    const objectUse = /^(?:and|or|about|to|for|with|on|in|at|that|if|know|up|a|an|the|this|some|any)$/i.test(next);
    const to = objectUse ? 'you' : 'your';
    return `${/^[A-Z]/.test(m) ? capFirst(to) : to}${space}${next}`;
  });
  swap(/\bher\b/gi, 'you');
  return out;
}
