import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { SCALAR_BUNDLE } from '../../shared/catalog/routes.js';
import { assetPath } from '../../shared/core/asset-path.js';
import { htmlPageHeaders, inlineScriptSource, NOSNIFF } from '../../shared/http/html-headers.js';

/** Scalar's start-up, the page's one inline script (allowed by its hash in the page's CSP). */
const INLINE_SCRIPT = `
      // The examples name this host with its API Gateway stage prefix when there is one (the document's server
      // is "/", which would resolve to the host alone).
      var base = new URL('..', location.href).href.replace(/\\/$/, '');
      Scalar.createApiReference('#app', {
        url: '../api/public/v1/openapi.json',
        servers: [{ url: base, description: 'This host' }],
        withDefaultFonts: false,
        defaultOpenAllTags: true,
        telemetry: false,
        // No buttons of Scalar's hosted services: no "Ask AI" agent, no MCP install, no toolbar (deploy,
        // share), no "Open in client", no developer tools.
        agent: { disabled: true },
        mcp: { disabled: true },
        showToolbar: 'never',
        showDeveloperTools: 'never',
        hideClientButton: true,
      });
    `;

/**
 * GET /docs/ and GET /docs/scalar.js: the reference page, Scalar rendering the published document with its
 * examples, and Scalar's standalone bundle from our own origin (no CDN). Both URLs are relative, so the page
 * works under an API Gateway stage prefix as well as on the local gateway.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>People search, enrichment and outreach API</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="scalar.js"></script>
    <script>${INLINE_SCRIPT}</script>
  </body>
</html>
`;

/**
 * What the page needs: Scalar's bundle from this origin and the inline start-up by its hash; styles Scalar
 * injects at run time (inline); the document and the "Try it" requests to this origin; images as data: URLs.
 * Nothing from another origin, and no other page may frame it.
 */
const PAGE_HEADERS = htmlPageHeaders([
  "default-src 'none'",
  `script-src 'self' ${inlineScriptSource(INLINE_SCRIPT)}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
]);

let bundle: string | undefined;

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId ?? crypto.randomUUID();
  const script = event.resource?.endsWith('.js') ?? false;
  if (script) bundle ??= readFileSync(assetPath(SCALAR_BUNDLE), 'utf8');
  return {
    statusCode: 200,
    headers: {
      'Content-Type': script ? 'text/javascript; charset=utf-8' : 'text/html; charset=utf-8',
      'Cache-Control': script ? 'public, max-age=86400' : 'public, max-age=300',
      'X-Request-Id': requestId,
      ...(script ? NOSNIFF : PAGE_HEADERS),
    },
    body: script ? bundle! : PAGE,
  };
}
