/**
 * The customer web app's security policy (and the privacy page's, on the same host), one definition for both
 * places that serve them: the local gateway (shared/local/web-app.ts) and the CloudFront response headers
 * policy (lib/constructs/web-hosting.ts),
 * so the two cannot drift. Scripts and styles only from the app's own origin (no inline script or style),
 * API calls only to that origin and the user pool's endpoint, no framing, no base or form targets.
 */
export function webAppContentSecurityPolicy(cognitoOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${cognitoOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The Cognito user-pool service's origin in a region, which the app signs in against. */
export const cognitoOriginOf = (region: string): string => `https://cognito-idp.${region}.amazonaws.com`;

/** The endpoint the app posts Cognito's JSON protocol to (no SDK in the page). */
export const cognitoEndpointOf = (region: string): string => `${cognitoOriginOf(region)}/`;

/**
 * The app's files served as they are, beside the bundle: the local gateway copies them, and the stack's
 * hosting deploys them (the favicon is named by index.html, so no page asks for /favicon.ico).
 */
export const WEB_APP_STATIC_FILES = ['index.html', 'app.css', 'favicon.svg'] as const;

/**
 * The privacy page (web/privacy, no sign-in) on the web app's host: the form for access, opt-out and erasure
 * requests and the page the mailed link opens (`?token=`). Its bundle is its own (privacy.js); it shares the
 * app's stylesheet, favicon and config.json (`publicApiBase`). Its files served as they are beside the bundle:
 */
export const PRIVACY_PAGE_PATH = '/privacy/';
export const PRIVACY_PAGE_STATIC_FILES = ['index.html', 'privacy.css'] as const;
