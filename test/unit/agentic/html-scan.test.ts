import { blocksOf } from '../../../shared/understanding/evaluate.js';
import { textOfTokens, tokenize } from '../../../shared/understanding/html-scan.js';

/**
 * Reading a page is linear in its size: unclosed tags of every kind the reader looks for, 512 KB of each
 * (the reader's size cap), are read in far less than the bound below. The regular expressions this replaced
 * took 10 s on 64 KB of `<` (and grew with the square: 512 KB would take over ten minutes); the bound is
 * generous so a loaded CI machine does not fail it, yet a quadratic reader cannot pass it.
 */
const KB512 = 512 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(KB512 / unit.length)).slice(0, KB512);

describe('the page scanner', () => {
  test('keeps what the regular expressions gave', () => {
    expect(textOfTokens(tokenize('a<b>c</b>d &amp; e&lt;f <script>var x = "<p>";</script> g <style>p{}</style>h'))).toBe('a c d & e<f g h');
    expect(textOfTokens(tokenize('1 < 2 and 3 > 2'))).toBe('1 < 2 and 3 > 2');
    expect(textOfTokens(tokenize('unclosed <a href="x'))).toBe('unclosed <a href="x');
    expect(blocksOf('<article><h2 class="t">One</h2><time datetime="2026-01-02">x</time></article><article><p>2025-05-06 two</p></article><article>open')).toEqual([
      { headline: 'One', date: '2026-01-02', text: 'One x' },
      { headline: '', date: '2025-05-06', text: '2025-05-06 two' },
    ]);
    expect(blocksOf('<title>T</title><h1>open<h2>Head</h2>')).toEqual([{ headline: 'open Head', date: null, text: 'T open Head' }]);
  });

  test.each(['<', '<a', '<a ', '<article>', '<h1>', '<time ', '<script>', '<style>', '<title>', '</', '<!--', '<article><h1><time '])('512 KB of unclosed %j is read in linear time', (unit) => {
    const page = fill(unit);
    const t = performance.now();
    const blocks = blocksOf(page);
    const ms = performance.now() - t;
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    expect(ms).toBeLessThan(2000);
  });
});
