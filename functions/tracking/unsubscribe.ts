import { openRoute } from '../../shared/http/handler.js';
import { followUnsubscribeLink } from '../../shared/outreach/unsubscribe-link.js';

const UNSUBSCRIBED_PAGE = '<!doctype html><title>Unsubscribed</title><p>You have been unsubscribed and will not receive further emails from this sender.</p>';

/** One-click unsubscribe (RFC 8058 POST) and the footer link (GET). */
export const handler = openRoute(async ({ params, event }) => {
  await followUnsubscribeLink(params.token!);
  if (event.httpMethod === 'POST') return { status: 200, body: { unsubscribed: true } };
  return { status: 200, raw: { contentType: 'text/html; charset=utf-8', body: UNSUBSCRIBED_PAGE } };
});
