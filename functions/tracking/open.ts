import { openRoute } from '../../shared/http/handler.js';
import { PIXEL, recordOpen } from '../../shared/outreach/tracking.js';

/** The open-tracking pixel: always a GIF (an unknown token reveals nothing), never cached. */
export const handler = openRoute(async ({ params }) => {
  await recordOpen(params.token!);
  return { status: 200, raw: { contentType: 'image/gif', body: PIXEL }, headers: { 'Cache-Control': 'no-store' } };
});
