import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { APP_SHOTS as SHOTS, appBrowser } from '../support/browser.js';
import type { LocalStack } from '../../shared/local/stack.js';
import type { Person } from '../../shared/directory/types.js';
import { Client, newTenant, reply, startTestServices, type TestServices } from '../support/local.js';

/**
 * The privacy page (`/privacy/` on the web app's host, issue 43) in headless Chromium at 375 px, against the
 * local stack and its generated directory: a directory person gets an outreach email, follows its footer's
 * privacy link to the form, asks to opt out, reads the link from the mail the service sent them, sees the
 * record held and the account that emailed them, confirms, and sees the completion. An unknown address gets
 * the same answer as a known one; a link that does not work shows the form again. Screenshots go to
 * test-artifacts/app/.
 */
let services: TestServices | undefined;
let stack: LocalStack;
let admin: Client;
let browser: BrowserContext;
let person: Person;
const blocked: string[] = [];
const consoleErrors: string[] = [];
const WIDTH = 375;

beforeAll(async () => {
  services = await startTestServices({ userPool: true, throttleMultiplier: 100, directory: { people: 60, seed: 43 } });
  ({ stack, admin } = services);
  const { people } = await services.readDirectory();
  person = people.find((p) => p.work_email && p.experience.length > 1)!;
  expect(person).toBeDefined();
  browser = await appBrowser(services.dir, { width: WIDTH, blocked, consoleErrors });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await services?.stop();
});
afterEach(() => {
  expect(blocked).toEqual([]);
  // No script or style refused by the page's policy, and nothing else failing in the page.
  expect(consoleErrors).toEqual([]);
});

const pageUrl = () => `http://localhost:${stack.port}/privacy/`;
const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as any[];
const SENT = "If that address is in our records, we've emailed a link to it. The link works once, within 24 hours.";

/** The page fits the viewport: nothing wider than the phone's screen. */
const fitsWidth = async (page: Page) => expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);

/** Fill and send the form: address and request, by their labels. */
async function ask(page: Page, email: string, request: 'See what is held' | 'Opt out' | 'Erase') {
  await page.getByLabel('Your email address').fill(email);
  await page.getByRole('radio', { name: request }).check();
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await page.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
}

test('the page is served without sign-in with the app\'s headers: no framing, no inline script, same-origin calls', async () => {
  const res = await fetch(pageUrl());
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy')!;
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("script-src 'self';");
  expect(csp).toMatch(/connect-src 'self'[ ;]/);
  expect(csp).not.toContain('unsafe-inline');
  expect([res.headers.get('x-frame-options'), res.headers.get('referrer-policy'), res.headers.get('x-content-type-options')]).toEqual(['DENY', 'no-referrer', 'nosniff']);
  const html = await res.text();
  expect(html).toContain('<script type="module" src="privacy.js"></script>');
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  const bare = await fetch(`http://localhost:${stack.port}/privacy?token=abc`, { redirect: 'manual' });
  expect([bare.status, bare.headers.get('location')]).toEqual([301, '/privacy/?token=abc']);
  // The page finds the public API in the host's one config.json.
  expect(((await (await fetch(`http://localhost:${stack.port}/app/config.json`)).json()) as { publicApiBase: string }).publicApiBase).toBe('/api/public/v1/');
});

test('from an outreach email\'s footer to the form, the mailed link, what is held, confirm and done: an opt-out', async () => {
  const email = person.work_email!;
  // An account emails the directory person; its footer links the privacy page.
  const tenant = await newTenant(stack, { name: 'Prospecting Co' }, { sender: { email: 'rep@prospecting.test', type: 'smtp', transport: 'ses' } });
  const created = await reply(
    tenant.client.typed.POST('/api/public/v1/emails/', { body: { to: { email, first_name: person.first_name }, instructions: 'Introduce our warehouse robots and ask for a short call.' } }),
  );
  expect(created.status).toBe(202);
  await settle();
  const id = created.body.id as string;
  expect((await reply(tenant.client.typed.POST('/api/public/v1/emails/{id}/approve/', { params: { path: { id } }, body: { schedule: 'now' } }))).status).toBe(200);
  await settle();
  const outreach = (await mailbox()).find((m) => m.delivered_to.includes(email));
  const footerLink = /To see or remove the data held about you: (\S+)/.exec(outreach.text)?.[1];
  expect(footerLink).toBe(pageUrl());

  const page = await browser.newPage();
  await page.goto(footerLink!);
  await page.getByRole('heading', { level: 1, name: 'Your data and privacy' }).waitFor();
  for (const choice of ['See what is held', 'Opt out', 'Erase']) await expect(page.getByRole('radio', { name: choice }).getAttribute('aria-describedby')).resolves.toMatch(/-explain$/);
  await fitsWidth(page);
  await page.screenshot({ path: join(SHOTS, 'privacy-form.png'), fullPage: true });
  await ask(page, email, 'Opt out');
  await expect(page.getByRole('status').textContent()).resolves.toBe(SENT);
  // Focus moves to the new view's heading.
  await expect(page.evaluate('document.activeElement?.textContent')).resolves.toBe('Check your email');

  // The link, from the mail the service sent to that address.
  await settle();
  const verification = (await mailbox()).filter((m) => m.delivered_to.includes(email) && m.message_id !== outreach.message_id);
  expect(verification).toHaveLength(1);
  const link = new RegExp(`${pageUrl().replace(/[.?/]/g, '\\$&')}\\?token=[A-Za-z0-9_.~%-]+`).exec(verification[0].text)?.[0];
  expect(link).toBeDefined();
  expect(verification[0].html).toContain(link!.replace(/&/g, '&amp;'));

  await page.goto(link!);
  await page.getByRole('heading', { level: 1, name: 'Opt out' }).waitFor();
  await expect(page.getByText(email, { exact: true }).count()).resolves.toBeGreaterThan(0);
  const record = page.getByRole('article', { name: person.full_name });
  await record.waitFor();
  await expect(record.getByRole('heading', { name: person.full_name }).count()).resolves.toBe(1);
  await expect(record.textContent()).resolves.toContain(person.current_job_title);
  await expect(page.getByText(/^1 account emailed this address in the last 12 months, last on .+\.$/).count()).resolves.toBe(1);
  await fitsWidth(page);
  await page.screenshot({ path: join(SHOTS, 'privacy-held.png'), fullPage: true });

  await page.getByRole('button', { name: 'Opt me out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Done' }).waitFor();
  await expect(page.getByRole('status').textContent()).resolves.toMatch(/^You are opted out\./);
  const completedAt = await page.locator('time').getAttribute('datetime');
  expect(Date.parse(completedAt!)).not.toBeNaN();
  // The token leaves the address bar once the request is done.
  expect(page.url()).toBe(pageUrl());
  await fitsWidth(page);
  await page.screenshot({ path: join(SHOTS, 'privacy-done.png'), fullPage: true });
  await page.close();
});

test('an unknown address gets the same answer as a known one', async () => {
  const page = await browser.newPage();
  await page.goto(pageUrl());
  const unknown = `nobody.${Date.now()}@unknown-company.test`;
  await ask(page, unknown, 'See what is held');
  await expect(page.getByRole('status').textContent()).resolves.toBe(SENT);
  await page.close();
});

test('a link that does not work says so and offers the form again', async () => {
  const page = await browser.newPage();
  await page.goto(`${pageUrl()}?token=${'x'.repeat(43)}`);
  await expect(page.getByRole('alert').textContent()).resolves.toBe('This link has expired or was already used; ask again below.');
  await page.getByLabel('Your email address').waitFor();
  expect(page.url()).toBe(pageUrl());
  await page.close();
  // The page's own request for the unknown token answered 404, which Chromium logs; nothing else may show.
  const logged = consoleErrors.splice(0);
  expect(logged.filter((e) => !/^Failed to load resource: the server responded with a status of 404\b/.test(e))).toEqual([]);
});
