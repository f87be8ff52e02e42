import { openRoute } from '../../shared/http/handler.js';
import { NotFoundError } from '../../shared/core/errors.js';
import { unsubscribe } from '../../shared/outreach/tracking.js';

/** One-click unsubscribe (RFC 8058 POST) and the footer link (GET): the address joins the suppression list. */
export const handler = openRoute(async ({ params, event }) => {
  if (!(await unsubscribe(params.token!))) throw new NotFoundError('Unknown unsubscribe link.');
  if (event.httpMethod === 'POST') return { status: 200, body: { unsubscribed: true } };
  return { status: 200, raw: { contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>Unsubscribed</title><p>You have been unsubscribed and will not receive further emails from this sender.</p>' } };
});
