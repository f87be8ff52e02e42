import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ASSETS_DIR, PRIVACY_DIR, buildHostedWebApp } from '../../lib/constructs/web-hosting.js';

test('the hosted build names content-hashed bundles in index.html and privacy/index.html and ships nothing else but the favicon they link', () => {
  const out = mkdtempSync(join(tmpdir(), 'hosted-app-'));
  try {
    buildHostedWebApp(out);
    expect(readdirSync(out).sort()).toEqual([ASSETS_DIR, 'favicon.svg', 'index.html', PRIVACY_DIR]);
    expect(readFileSync(join(out, 'favicon.svg'), 'utf8')).toMatch(/^<svg /);
    const assets = readdirSync(join(out, ASSETS_DIR));
    const bundles = [/^app-[A-Z0-9]{8}\.css$/, /^main-[A-Z0-9]{8}\.js$/, /^privacy-[A-Z0-9]{8}\.css$/, /^privacy-[A-Z0-9]{8}\.js$/];
    expect(assets).toHaveLength(bundles.length);
    const [appCss, appJs, privacyCss, privacyJs] = bundles.map((name) => assets.find((a) => name.test(a))) as [string, string, string, string];
    expect([appCss, appJs, privacyCss, privacyJs].every(Boolean)).toBe(true);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain(`href="${ASSETS_DIR}/${appCss}"`);
    expect(html).toContain(`src="${ASSETS_DIR}/${appJs}"`);
    expect(html).not.toMatch(/"app\.(js|css)"/);
    expect(html).toContain('<link rel="icon" href="favicon.svg" type="image/svg+xml" />');
    expect(readFileSync(join(out, ASSETS_DIR, appJs), 'utf8')).toContain('config.json');

    // The privacy page: served at /privacy/ from app/privacy/, so it names the bundles by absolute path.
    expect(readdirSync(join(out, PRIVACY_DIR))).toEqual(['index.html']);
    const page = readFileSync(join(out, PRIVACY_DIR, 'index.html'), 'utf8');
    expect(page).toContain(`src="/app/${ASSETS_DIR}/${privacyJs}"`);
    expect(page).toContain(`href="/app/${ASSETS_DIR}/${privacyCss}"`);
    expect(page).toContain(`href="/app/${ASSETS_DIR}/${appCss}"`);
    expect(page).toContain('<link rel="icon" href="../app/favicon.svg" type="image/svg+xml" />');
    expect(page).not.toMatch(/"(privacy\.(js|css)|\.\.\/app\/app\.css)"/);
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    // Its own small bundle: the public API's config field and none of the app's pages or sign-in.
    const bundle = readFileSync(join(out, ASSETS_DIR, privacyJs), 'utf8');
    expect(bundle).toContain('publicApiBase');
    expect(bundle).toContain('privacy-requests/');
    expect(bundle).not.toContain('InitiateAuth');
    expect(bundle.length).toBeLessThan(readFileSync(join(out, ASSETS_DIR, appJs), 'utf8').length / 3);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
