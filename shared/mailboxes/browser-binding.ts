import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';

/**
 * Binds a started mailbox connection to the browser that started it (docs/decisions.md#connecting-a-mailbox).
 * The start answers a random nonce in a cookie and the state record keeps only the nonce's SHA-256; the
 * callback must present the cookie, whose hash is compared in constant time. A consent link opened in any
 * other browser (a link sent to a victim, a state seen in a log) connects nothing.
 *
 * The cookie is HttpOnly, SameSite=Lax (sent on the provider's top-level redirect back, not on cross-site
 * subrequests), scoped to the callback's path, lives as long as the state (600 s), and is Secure wherever the
 * callback is https (in AWS; not on the twin's plain-http loopback, where a browser would drop it).
 */
export const BINDING_COOKIE = 'oauth_binding';
export const BINDING_SECONDS = 600;

export interface BrowserBinding {
  /** The secret the browser holds: goes in the cookie only. */
  nonce: string;
  /** What the state record keeps. */
  nonceHash: string;
  /** The `Set-Cookie` value of the start's answer. */
  cookie: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The cookie's `Set-Cookie` value, written by the `cookie` package (jshttp). */
function setCookie(callbackUrl: string, value: string, maxAge: number): string {
  const url = new URL(callbackUrl);
  return stringifySetCookie(BINDING_COOKIE, value, { path: url.pathname, maxAge, httpOnly: true, sameSite: 'lax', secure: url.protocol === 'https:' });
}

export function newBrowserBinding(callbackUrl: string): BrowserBinding {
  const nonce = randomBytes(32).toString('base64url');
  return { nonce, nonceHash: sha256(nonce), cookie: setCookie(callbackUrl, nonce, BINDING_SECONDS) };
}

/** The `Set-Cookie` value that removes the binding cookie (every callback answer sends it: the nonce is spent). */
export function clearedBindingCookie(callbackUrl: string): string {
  return setCookie(callbackUrl, '', 0);
}

/** The binding nonce among `Cookie` header values (one header, or several as HTTP/2 clients may send them). */
export function bindingNonceOf(cookieHeaders: readonly string[]): string | null {
  for (const header of cookieHeaders) {
    const value = parseCookie(header)[BINDING_COOKIE];
    if (value) return value;
  }
  return null;
}

/** Whether the presented nonce is the one whose hash the state record holds; constant time in the hashes. */
export function bindingMatches(nonce: string | null, nonceHash: string | undefined): boolean {
  if (!nonce || !nonceHash) return false;
  const presented = Buffer.from(sha256(nonce), 'hex');
  const expected = Buffer.from(nonceHash, 'hex');
  return expected.length === presented.length && timingSafeEqual(presented, expected);
}
