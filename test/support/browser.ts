import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './local.js';
import { USER_PASSWORD } from './app-users.js';

/** Where the web app suites put their screenshots (`appBrowser` makes it). */
export const APP_SHOTS = join(ROOT, 'test-artifacts/app');

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

/** `loopbackBrowser` on a new profile folder inside `dir` (which the caller removes), with APP_SHOTS made. */
export async function appBrowser(dir: string, opts: { width?: number; blocked: string[]; consoleErrors?: string[] }): Promise<BrowserContext> {
  mkdirSync(APP_SHOTS, { recursive: true });
  return loopbackBrowser(mkdtempSync(join(dir, 'profile-')), opts);
}

/** Signs a web app user in on the app's sign-in page (password USER_PASSWORD) and waits for the overview. */
export async function signIn(page: Page, appUrl: string, email: string): Promise<void> {
  await page.goto(appUrl);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(USER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: /^Overview/ }).waitFor();
}
