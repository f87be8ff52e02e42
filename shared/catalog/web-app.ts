/**
 * The customer web app's security policy, one definition for both places that serve the app: the local
 * gateway (shared/local/web-app.ts) and the CloudFront response headers policy (lib/constructs/web-hosting.ts),
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
