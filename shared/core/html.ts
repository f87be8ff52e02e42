/**
 * Email body conversions: the one HTML sanitiser (PATCH bodies, drafts, test emails), HTML → plain
 * text for the `body_plain` twin of an edited `body_html`, while plain → HTML for the reverse is in
 * plain-html.ts, which needs no HTML parser: MIME composition and the drafters do not load html-to-text.
 *
 * Each library is imported at its first call, not at module load (they are lazy packages beside the bundle,
 * lib/constructs/service-function.ts): only an edit with `body_html`, a test email and a signature change use
 * them, and loading them costs the routes that carry them ≈ 480 KB and tens of ms of cold start (`npm run bench`).
 */
import type sanitize from 'sanitize-html';
import type { IOptions } from 'sanitize-html';
import { once } from './once.js';

// Each library loads on its own: a signature change needs only the sanitiser, a test email's signature only
// the renderer. sanitize-html is CommonJS: its function is the module's default export, here and in its lazy build.
const loadSanitizer = /* @__PURE__ */ once(() => import('sanitize-html').then((m) => (m as unknown as { default: typeof sanitize }).default));
const loadRenderer = /* @__PURE__ */ once(() => import('html-to-text').then((m) => m.convert));

const ALLOWED_TAGS = [
  'p',
  'br',
  'b',
  'strong',
  'i',
  'em',
  'u',
  'a',
  'ul',
  'ol',
  'li',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'span',
  'div',
];

const SANITIZE_OPTIONS: IOptions = {
  allowedTags: ALLOWED_TAGS,
  // No style/class/on* anywhere: email clients render inline styles inconsistently and they are a
  // common vector for hiding content; only links keep attributes.
  allowedAttributes: { a: ['href', 'title'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href'],
  // `//evil.example` would inherit whatever scheme the client uses; require an explicit one.
  allowProtocolRelative: false,
  // script/style/textarea/noscript lose their content too (sanitize-html's nonTextTags default),
  // iframe/img/object are dropped because they are not in the allow-list.
  disallowedTagsMode: 'discard',
};

/** Keeps basic formatting and http/https/mailto links; drops scripts, styles, embeds, images and handlers. */
export async function sanitizeEmailHtml(html: string): Promise<string> {
  const sanitizeHtml = await loadSanitizer();
  return sanitizeHtml(html, SANITIZE_OPTIONS).trim();
}

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  options: { uppercase: false },
}));

/** Plain-text rendering of an HTML body: no hard wrapping, links shown once, headings as written. */
export async function htmlToPlain(html: string): Promise<string> {
  const convert = await loadRenderer();
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      ...HEADINGS,
    ],
  }).trim();
}
