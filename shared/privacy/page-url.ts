import { optionalEnv } from '../core/env.js';

/**
 * The privacy page on the web app's host (`/privacy/`, web/privacy): the form where anyone asks what is held
 * about their address, opts out or asks for erasure, and the page the mailed link opens (`?token=`). Every
 * outreach email's footer links it beside the unsubscribe link.
 *
 * `PRIVACY_PAGE_URL`: in AWS the stack sets the web distribution's `https://<domain>/privacy/` on the
 * functions that write the link; on the twin the local stack sets the gateway's, which serves the page. Unset
 * (a function run outside either), the page beside PUBLIC_BASE_URL, as the twin serves it.
 */
export function privacyPageUrl(token?: string): string {
  const base = optionalEnv('PRIVACY_PAGE_URL') ?? `${(optionalEnv('PUBLIC_BASE_URL') ?? 'http://localhost:3000').replace(/\/$/, '')}/privacy/`;
  return token === undefined ? base : `${base}?token=${encodeURIComponent(token)}`;
}
