import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { PRIVACY_PAGE_PATH, PRIVACY_PAGE_STATIC_FILES, WEB_APP_STATIC_FILES, webAppContentSecurityPolicy } from '../catalog/web-app.js';
import type { StaticAnswer } from './gateway.js';

/**
 * The customer web app on the local gateway: built once at start (esbuild bundles `web/app/src/main.ts` with
 * Preact and htm into one `app.js`; no CDN at run time) and served at `/app/` with the headers the stack's
 * distribution adds, beside `/app/config.json`, which tells the page where the API and the user pool are.
 * The privacy page (web/privacy, its own small bundle `privacy.js`) is served at `/privacy/` the same way,
 * from `privacy/` in the same folder, as the stack's distribution serves it from the app's files.
 */
export const APP_PATH = '/app/';

export interface WebAppConfig {
  /** The customer API the app calls (`/api/app/v1/`). */
  apiBase: string;
  /** The public API, whose privacy requests the privacy page calls (`/api/public/v1/`). */
  publicApiBase: string;
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
}

/** The privacy page's folder inside the built app (and inside the app's files on the distribution). */
const PRIVACY_DIR = 'privacy';

/**
 * Bundle the app into `outDir` (index.html, app.css, favicon.svg, app.js) and the privacy page into
 * `outDir/privacy` (index.html, privacy.css, privacy.js); returns how long it took.
 */
export async function buildWebApp(root: string, outDir: string): Promise<number> {
  const t0 = Date.now();
  const source = resolve(root, 'web/app');
  const privacySource = resolve(root, 'web/privacy');
  const privacyOut = join(outDir, PRIVACY_DIR);
  mkdirSync(privacyOut, { recursive: true });
  const { build } = await import('esbuild');
  const bundle = (entry: string, outfile: string) =>
    build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', target: 'es2022', minify: true, sourcemap: false, logLevel: 'silent', absWorkingDir: root });
  await Promise.all([bundle(join(source, 'src/main.ts'), join(outDir, 'app.js')), bundle(join(privacySource, 'src/privacy.ts'), join(privacyOut, 'privacy.js'))]);
  for (const file of WEB_APP_STATIC_FILES) copyFileSync(join(source, file), join(outDir, file));
  for (const file of PRIVACY_PAGE_STATIC_FILES) copyFileSync(join(privacySource, file), join(privacyOut, file));
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
 * Security headers of every answer under /app/ and /privacy/: the content security policy the stack's
 * distribution sends too (shared/catalog/web-app.ts), no framing, no referrer, no MIME sniffing.
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

/** The gateway's `site` handler for the built app and the privacy page. */
export function webAppSite(outDir: string, config: WebAppConfig): (url: URL) => Promise<StaticAnswer | null> {
  const headers = webAppHeaders(config.cognito.endpoint);
  const base = resolve(outDir);
  const notFound = (): StaticAnswer => ({ status: 404, headers: { ...headers, 'content-type': 'text/plain' }, body: 'Not found' });
  const fileIn = (dir: string, name: string): StaticAnswer => {
    const file = normalize(join(dir, decodeURIComponent(name)));
    const type = TYPES[extname(file)];
    if (!file.startsWith(base + sep) || !type) return notFound();
    try {
      return { status: 200, headers: { ...headers, 'content-type': type }, body: readFileSync(file) };
    } catch {
      return notFound();
    }
  };
  return async (url) => {
    if (url.pathname === '/app') return { status: 301, headers: { ...headers, location: APP_PATH }, body: '' };
    if (url.pathname === PRIVACY_PAGE_PATH.slice(0, -1)) return { status: 301, headers: { ...headers, location: `${PRIVACY_PAGE_PATH}${url.search}` }, body: '' };
    if (url.pathname.startsWith(PRIVACY_PAGE_PATH)) return fileIn(join(base, PRIVACY_DIR), url.pathname.slice(PRIVACY_PAGE_PATH.length) || 'index.html');
    if (!url.pathname.startsWith(APP_PATH)) return null;
    const name = url.pathname.slice(APP_PATH.length) || 'index.html';
    if (name === 'config.json') return { status: 200, headers: { ...headers, 'content-type': TYPES['.json']! }, body: JSON.stringify(config) };
    return fileIn(base, name);
  };
}
