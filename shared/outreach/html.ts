/**
 * Email body conversions: the one HTML sanitiser (PATCH bodies, drafts, test emails), HTML → plain
 * text for the `body_plain` twin of an edited `body_html`, while plain → HTML for the reverse is in
 * plain-html.ts, which needs no HTML parser: MIME composition and the drafters do not load html-to-text.
 */
import sanitizeHtml from 'sanitize-html';
import { convert } from 'html-to-text';

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

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
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
export function sanitizeEmailHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE_OPTIONS).trim();
}

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  options: { uppercase: false },
}));

/** Plain-text rendering of an HTML body: no hard wrapping, links shown once, headings as written. */
export function htmlToPlain(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      ...HEADINGS,
    ],
  }).trim();
}
