import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium, headless, on the profile directory given, whose requests may only reach loopback: any
 * other is aborted and its URL recorded in `blocked` (tests assert it stays empty). Console errors of its
 * pages go to `consoleErrors` when given.
 */
export async function loopbackBrowser(profileDir: string, opts: { width?: number; blocked: string[]; consoleErrors?: string[] }): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: opts.width ?? 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === 'localhost' || host === '127.0.0.1' || host === '[::1]') return route.continue();
    opts.blocked.push(route.request().url());
    return route.abort();
  });
  const { consoleErrors } = opts;
  if (consoleErrors) context.on('page', (page) => page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text())));
  return context;
}
