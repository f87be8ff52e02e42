import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ASSETS_DIR, buildHostedWebApp } from '../../lib/constructs/web-hosting.js';

test('the hosted build names content-hashed bundles in index.html and ships nothing else but the favicon index.html links', () => {
  const out = mkdtempSync(join(tmpdir(), 'hosted-app-'));
  try {
    buildHostedWebApp(out);
    expect(readdirSync(out).sort()).toEqual([ASSETS_DIR, 'favicon.svg', 'index.html']);
    expect(readFileSync(join(out, 'favicon.svg'), 'utf8')).toMatch(/^<svg /);
    const assets = readdirSync(join(out, ASSETS_DIR)).sort();
    expect(assets).toEqual([expect.stringMatching(/^app-[A-Z0-9]{8}\.css$/), expect.stringMatching(/^main-[A-Z0-9]{8}\.js$/)]);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain(`href="${ASSETS_DIR}/${assets[0]}"`);
    expect(html).toContain(`src="${ASSETS_DIR}/${assets[1]}"`);
    expect(html).not.toMatch(/"app\.(js|css)"/);
    expect(html).toContain('<link rel="icon" href="favicon.svg" type="image/svg+xml" />');
    expect(readFileSync(join(out, ASSETS_DIR, assets[1]!), 'utf8')).toContain('config.json');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
