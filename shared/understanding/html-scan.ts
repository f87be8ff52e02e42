/**
 * A page's HTML in one left-to-right pass: text runs and tags, in order, with their offsets. Linear in the
 * page's length whatever it holds. Regular expressions such as `<[^>]+>` or `<script[\s\S]*?<\/script>`
 * rescan the rest of the page from every unclosed `<`, so a page of 64,000 `<` took seconds; here every
 * search for a `>` or a closing `</script>` is remembered, and a later `<` reuses the answer instead of
 * searching again, so no character is looked at more than a bounded number of times.
 *
 * Not a browser parser: a `<` followed by a letter, `/`, `!` or `?` opens a tag that ends at the next `>`
 * (a `<` with no `>` anywhere after it is text); `<script>` and `<style>` content up to their closing tag
 * is skipped; attributes are kept as written, for the few callers that look at one.
 */
export type Token = { kind: 'text'; text: string; start: number; end: number } | { kind: 'tag'; name: string; close: boolean; attrs: string; start: number; end: number };

const RAW_TEXT = new Set(['script', 'style']);
const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 58;

export function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  // The next `>` at or after the position last asked about (-1: none in the rest of the page).
  let gt = -2;
  const nextGt = (from: number) => {
    if (gt === -1 || gt >= from) return gt;
    gt = html.indexOf('>', from);
    return gt;
  };
  // Per raw-text element, the next closing tag found (null: none in the rest of the page).
  const closers = new Map<string, { re: RegExp; at: { start: number; end: number } | null }>();
  const nextCloser = (name: string, from: number) => {
    let c = closers.get(name);
    if (!c) {
      c = { re: new RegExp(`</${name}\\s*>`, 'gi'), at: { start: -1, end: -1 } };
      closers.set(name, c);
    }
    if (c.at === null || c.at.start >= from) return c.at;
    c.re.lastIndex = from;
    const m = c.re.exec(html);
    c.at = m ? { start: m.index, end: m.index + m[0].length } : null;
    return c.at;
  };

  let text = 0; // where the current text run began
  let i = 0;
  const flush = (upTo: number) => {
    if (upTo > text) tokens.push({ kind: 'text', text: html.slice(text, upTo), start: text, end: upTo });
  };
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const c = html.charCodeAt(lt + 1);
    const close = c === 47; // '/'
    const opensTag = isNameStart(c) || (close && isNameStart(html.charCodeAt(lt + 2))) || c === 33 || c === 63; // letter, '/'+letter, '!', '?'
    const end = opensTag ? nextGt(lt + 1) : -1;
    if (end === -1) {
      // Not a tag (or no `>` anywhere after it): text. With no `>` left, nothing after this can be a tag.
      if (opensTag) break;
      i = lt + 1;
      continue;
    }
    flush(lt);
    let n = lt + 1 + (close ? 1 : 0);
    const nameStart = n;
    while (n < end && isNameChar(html.charCodeAt(n))) n++;
    const name = html.slice(nameStart, n).toLowerCase();
    tokens.push({ kind: 'tag', name, close, attrs: html.slice(n, end), start: lt, end: end + 1 });
    i = end + 1;
    text = i;
    if (!close && RAW_TEXT.has(name)) {
      const closer = nextCloser(name, i);
      if (closer) {
        // The element's content is neither text nor tags.
        tokens.push({ kind: 'tag', name, close: true, attrs: '', start: closer.start, end: closer.end });
        i = closer.end;
        text = i;
      }
    }
  }
  flush(html.length);
  return tokens;
}

const decode = (s: string) => (!s.includes('&') ? s : s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'").replace(/&amp;/g, '&'));

/** The text of some tokens: tags become spaces, entities decoded, whitespace collapsed. */
export function textOfTokens(tokens: Token[]): string {
  const parts: string[] = [];
  for (const t of tokens) parts.push(t.kind === 'text' ? t.text : ' ');
  return decode(parts.join('')).replace(/\s+/g, ' ').trim();
}
