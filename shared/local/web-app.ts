import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WEB_APP_STATIC_FILES, webAppContentSecurityPolicy } from '../catalog/web-app.js';
import type { StaticAnswer } from './gateway.js';

/**
 * The customer web app on the local gateway: built once at start (esbuild bundles `web/app/src/main.ts` with
 * Preact and htm into one `app.js`; no CDN at run time) and served at `/app/` with the headers the stack's
 * distribution adds, beside `/app/config.json`, which tells the page where the API and the user pool are.
 */
export const APP_PATH = '/app/';

export interface WebAppConfig {
  apiBase: string;
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
}

/** Bundle the app into `outDir` (index.html, app.css, favicon.svg, app.js); returns how long it took. */
export async function buildWebApp(root: string, outDir: string): Promise<number> {
  const t0 = Date.now();
  const source = resolve(root, 'web/app');
  mkdirSync(outDir, { recursive: true });
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(source, 'src/main.ts')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  for (const file of WEB_APP_STATIC_FILES) copyFileSync(join(source, file), join(outDir, file));
  return Date.now() - t0;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/**
 * Security headers of every answer under /app/: the content security policy the stack's distribution sends
 * too (shared/catalog/web-app.ts), no framing, no referrer, no MIME sniffing.
 */
export function webAppHeaders(cognitoEndpoint: string): Record<string, string> {
  const cognitoOrigin = new URL(cognitoEndpoint).origin;
  return {
    'content-security-policy': webAppContentSecurityPolicy(cognitoOrigin),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}

/** The gateway's `site` handler for the built app. */
export function webAppSite(outDir: string, config: WebAppConfig): (url: URL) => Promise<StaticAnswer | null> {
  const headers = webAppHeaders(config.cognito.endpoint);
  const base = resolve(outDir);
  return async (url) => {
    if (url.pathname === '/app') return { status: 301, headers: { ...headers, location: APP_PATH }, body: '' };
    if (!url.pathname.startsWith(APP_PATH)) return null;
    const name = url.pathname.slice(APP_PATH.length) || 'index.html';
    if (name === 'config.json') return { status: 200, headers: { ...headers, 'content-type': TYPES['.json']! }, body: JSON.stringify(config) };
    const file = normalize(join(base, decodeURIComponent(name)));
    const type = TYPES[extname(file)];
    if (!file.startsWith(base + sep) || !type) return { status: 404, headers: { ...headers, 'content-type': 'text/plain' }, body: 'Not found' };
    try {
      return { status: 200, headers: { ...headers, 'content-type': type }, body: readFileSync(file) };
    } catch {
      return { status: 404, headers: { ...headers, 'content-type': 'text/plain' }, body: 'Not found' };
    }
  };
}
