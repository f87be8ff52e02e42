import { openRoute } from '../../shared/http/handler.js';
import { confirmUnsubscribeLink, followUnsubscribeLink } from '../../shared/outreach/unsubscribe-link.js';
import { escapeHtml } from '../../shared/outreach/plain-html.js';
import { FORM_PAGE_CSP, htmlPageHeaders, NOSNIFF } from '../../shared/http/html-headers.js';

/** No script, style or frame: only its own form posting back (shared/http/html-headers.ts). */
const PAGE_HEADERS = htmlPageHeaders(FORM_PAGE_CSP);

const html = (body: string) => ({ contentType: 'text/html; charset=utf-8', body: `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe</title>${body}` });

// The forms post back to the same URL (relative, so it works behind any host name and stage).
const CONFIRM_PAGE = html('<p>Stop receiving emails from this sender?</p><form method="post" action=""><input type="hidden" name="confirm" value="yes"><button type="submit">Unsubscribe</button></form>');
const DONE_PAGE = html('<p>You have been unsubscribed and will not receive further emails from this sender.</p>');

/** A link several people got: one button per address, each unsubscribing that address alone. */
const choosePage = (choices: string[]) =>
  html(
    '<p>This email went to several people. Choose your own address to stop receiving emails from this sender; nobody else is unsubscribed.</p>' +
      choices
        .map((a) => `<form method="post" action=""><input type="hidden" name="confirm" value="yes"><input type="hidden" name="recipient" value="${escapeHtml(a)}"><button type="submit">Unsubscribe ${escapeHtml(a)}</button></form>`)
        .join(''),
  );
const doneFor = (address: string) => html(`<p>You have been unsubscribed: ${escapeHtml(address)} will not receive further emails from this sender.</p>`);

/**
 * GET: a confirmation page that suppresses nothing (one button, or one per recipient when the CC recipients
 * got the same message). POST (a button, or RFC 8058 one-click): the lead alone got the link, the lead is
 * suppressed at once; several got it, only the address chosen on the page is, and without a choice nothing
 * is and the page is shown again.
 */
export const handler = openRoute(async ({ params, event }) => {
  if (event.httpMethod !== 'POST') {
    const { choices } = await confirmUnsubscribeLink(params.token!);
    return { status: 200, raw: choices.length > 1 ? choosePage(choices) : CONFIRM_PAGE, headers: PAGE_HEADERS };
  }
  const form = new URLSearchParams(event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? ''));
  const out = await followUnsubscribeLink(params.token!, form.get('recipient'));
  if (!out.unsubscribed) return { status: 200, raw: choosePage(out.choices), headers: PAGE_HEADERS };
  if (out.choices.length > 1) return { status: 200, raw: doneFor(out.unsubscribed), headers: PAGE_HEADERS };
  return form.get('confirm') === 'yes' ? { status: 200, raw: DONE_PAGE, headers: PAGE_HEADERS } : { status: 200, body: { unsubscribed: true }, headers: NOSNIFF };
});
