/** Matching that skips what the instructions rule out: "not too formal", "don't ask for a call". */

const NEGATION_BEFORE =
  /(?:\bnot|\bno|\bnever|\bavoid(?:ing)?|\bwithout|n't|\bdont|\bnothing|\bless)\s+(?:(?:too|overly|very|be|being|sound|sounding|so|a|an|any|the|ask|asking|for|push|pushing|propose|proposing|suggest|suggesting|mention|mentioning|include|including)\s+)*$/i;

export function isNegated(text: string, index: number): boolean {
  return NEGATION_BEFORE.test(text.slice(Math.max(0, index - 40), index));
}

/** Earliest non-negated match of `re` (which must be global), or null. */
export function firstMatch(text: string, re: RegExp): RegExpExecArray | null {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!isNegated(text, m.index)) return m;
    if (m[0].length === 0) re.lastIndex += 1;
  }
  return null;
}

export function hasNegatedMatch(text: string, re: RegExp): boolean {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (isNegated(text, m.index)) return true;
  }
  return false;
}
