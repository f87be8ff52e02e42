import fc from 'fast-check';
import { htmlToPlain, sanitizeEmailHtml } from '../../../shared/core/html.js';
import { plainToHtml } from '../../../shared/outreach/plain-html.js';

describe('sanitizeEmailHtml', () => {
  it('keeps the allowed formatting tags and safe links', async () => {
    const html =
      '<h1>Title</h1><h4>Sub</h4><p>Hi <b>b</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u><br></p>' +
      '<ul><li>one</li></ul><ol><li>two</li></ol><blockquote>q</blockquote><div><span>x</span></div>' +
      '<a href="https://example.com/a?b=1">web</a> <a href="http://example.com">plain</a> <a href="mailto:sam@example.com">mail</a>';
    const out = await sanitizeEmailHtml(html);
    for (const tag of ['h1', 'h4', 'p', 'b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'blockquote', 'div', 'span']) {
      expect(out).toContain(`<${tag}>`);
    }
    expect(out).toContain('<br />');
    expect(out).toContain('<a href="https://example.com/a?b=1">web</a>');
    expect(out).toContain('<a href="http://example.com">plain</a>');
    expect(out).toContain('<a href="mailto:sam@example.com">mail</a>');
  });

  it('removes scripts, styles, embeds, images and event handlers', async () => {
    const out = await sanitizeEmailHtml(
      '<p onclick="steal()">Hi<script>alert(1)</script><style>p{display:none}</style></p>' +
        '<img src="x" onerror="alert(1)"><iframe src="https://evil.example"></iframe>' +
        '<object data="x"></object><form action="https://evil.example"><input name="q"></form>' +
        '<span style="color:red" class="x" onmouseover="x()">kept</span>',
    );
    expect(out).toBe('<p>Hi</p><span>kept</span>');
  });

  it.each([
    ['javascript:alert(1)'],
    ['JaVaScRiPt:alert(1)'],
    ['&#106;avascript:alert(1)'],
    ['java\tscript:alert(1)'],
    ['data:text/html;base64,PHNjcmlwdD4='],
    ['vbscript:msgbox(1)'],
    ['//evil.example/path'],
  ])('drops the href %s', async (href) => {
    const out = await sanitizeEmailHtml(`<a href="${href}">x</a>`);
    expect(out).toBe('<a>x</a>');
  });

  it('never lets script, handlers or javascript: URLs through (fuzzed)', async () => {
    const fragment = fc.constantFrom(
      '<script>',
      '</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">',
      '<a href=javascript:alert(1)>',
      '<svg onload=alert(1)>',
      '<p>',
      '</p>',
      '<b>',
      '"',
      "'",
      '>',
      '<',
      'text',
      ' onclick="x()"',
      '<iframe src="//x">',
      '<style>',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fragment, { maxLength: 30 }), async (parts) => {
        const out = await sanitizeEmailHtml(parts.join(''));
        expect(out).not.toMatch(/<script|<img|<svg|<iframe|<style/i);
        expect(out).not.toMatch(/<[^>]*\son\w+\s*=/i);
        expect(out).not.toMatch(/href\s*=\s*["']?\s*javascript:/i);
      }),
      { numRuns: 500 },
    );
  });
});

describe('htmlToPlain', () => {
  it('does not wrap long lines and keeps paragraphs, line breaks, links and lists', async () => {
    const long = 'word '.repeat(40).trim();
    const plain = await htmlToPlain(
      `<h2>Heading</h2><p>${long}</p><p>Second<br>line with <a href="https://example.com/x">a link</a></p><ul><li>a</li><li>b</li></ul>`,
    );
    expect(plain).toContain(long);
    expect(plain).toContain('Heading\n\n');
    expect(plain).toContain('Second\nline with a link [https://example.com/x]');
    expect(plain).toMatch(/\* a\n \* b$/);
  });

  it('drops images and decodes entities', async () => {
    expect(await htmlToPlain('<p>Tom &amp; Jerry <img src="x.png" alt="pic"></p>')).toBe('Tom & Jerry');
  });
});

describe('plainToHtml', () => {
  it('escapes text, makes paragraphs on blank lines and <br> on single newlines', () => {
    expect(plainToHtml('Hi <Jane> & "co",\n\nLine one\nLine two\r\n\r\n\r\nBest,\nSam')).toBe(
      '<p>Hi &lt;Jane&gt; &amp; &quot;co&quot;,</p>\n<p>Line one<br>\nLine two</p>\n<p>Best,<br>\nSam</p>',
    );
  });

  it('returns an empty string for blank input', () => {
    expect(plainToHtml('  \n\n ')).toBe('');
  });

  it('round-trips through htmlToPlain', async () => {
    const word = fc.stringMatching(/^[A-Za-z0-9<>&"'.,!?]{1,8}$/);
    const line = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
    const paragraph = fc.array(line, { minLength: 1, maxLength: 3 }).map((l) => l.join('\n'));
    const body = fc.array(paragraph, { minLength: 1, maxLength: 4 }).map((p) => p.join('\n\n'));
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        expect(await htmlToPlain(plainToHtml(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});
