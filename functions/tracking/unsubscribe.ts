import { openRoute } from '../../shared/http/handler.js';
import { confirmUnsubscribeLink, followUnsubscribeLink } from '../../shared/outreach/unsubscribe-link.js';

const html = (body: string) => ({ contentType: 'text/html; charset=utf-8', body: `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe</title>${body}` });

// The form posts back to the same URL (relative, so it works behind any host name and stage).
const CONFIRM_PAGE = html('<p>Stop receiving emails from this sender?</p><form method="post" action=""><input type="hidden" name="confirm" value="yes"><button type="submit">Unsubscribe</button></form>');
const DONE_PAGE = html('<p>You have been unsubscribed and will not receive further emails from this sender.</p>');

/** GET: a confirmation page that suppresses nothing. POST (the page's button, or RFC 8058 one-click): suppressed at once. */
export const handler = openRoute(async ({ params, event }) => {
  if (event.httpMethod !== 'POST') {
    await confirmUnsubscribeLink(params.token!);
    return { status: 200, raw: CONFIRM_PAGE };
  }
  await followUnsubscribeLink(params.token!);
  const fromPage = /(^|&)confirm=yes(&|$)/.test(event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? ''));
  return fromPage ? { status: 200, raw: DONE_PAGE } : { status: 200, body: { unsubscribed: true } };
});
