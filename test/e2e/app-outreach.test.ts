import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { APP_SHOTS as SHOTS, appBrowser, signIn as signInToApp } from '../support/browser.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, startTestServices, reply, type TestServices } from '../support/local.js';
import { newAppTenant } from '../support/app-users.js';

/**
 * The web app's outreach review queue: the customer API's email routes (the account is the token's) and the
 * page in headless Chromium, on one local stack with its workers, so drafts are written and approved emails
 * reach the dev mailbox.
 */
let services: TestServices | undefined;
let stack: LocalStack;
let admin: Client;
let context: BrowserContext;
const blocked: string[] = [];

beforeAll(async () => {
  services = await startTestServices({ userPool: true, throttleMultiplier: 100, directory: { people: 200, seed: 3 } });
  ({ stack, admin } = services);
  context = await appBrowser(services.dir, { blocked });
}, 120_000);
afterAll(async () => {
  await context?.close();
  await services?.stop();
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const mailbox = async () => (await admin.console('GET', 'dev/mailbox/')).body.messages as { to: string[]; subject: string }[];

async function owner(email: string) {
  const t = await newAppTenant(stack, email);
  const ea = await admin.console('POST', `accounts/${t.accountId}/sending-accounts/`, { email: `rep.${email}`, type: 'google' });
  expect(ea.status).toBe(201);
  return t;
}

async function draft(t: Awaited<ReturnType<typeof owner>>, to: string) {
  const r = await reply(t.client.typed.POST('/api/public/v1/emails/', { body: {
    to: { email: to, first_name: 'Jane', last_name: 'Doe', company_name: 'Acme Robotics' },
    instructions: 'Write a short, friendly email introducing our warehouse automation platform and ask for a 15-minute call.',
  } }));
  expect(r.status).toBe(202);
  return r.body.id as string;
}

const signIn = (page: Page, email: string) => signInToApp(page, stack.appUrl, email);

test('the email routes answer as the public ones for the token\'s account, and 404 for another account\'s email', async () => {
  const first = await owner('routes.first@tenant.test');
  const second = await owner('routes.second@tenant.test');
  const id = await draft(first, 'routes.lead@prospect.test');
  await settle();

  const viaKey = await reply(first.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }));
  const viaApp = await first.app.route('GET', `emails/${id}/`);
  expect([viaApp.status, viaApp.body]).toEqual([200, viaKey.body]);
  expect(viaApp.body.status).toBe('pending_review');
  const list = await first.app.route('GET', 'emails/?status=pending_review');
  expect(list.body).toEqual((await reply(first.client.typed.GET('/api/public/v1/emails/', { params: { query: { status: 'pending_review' } } }))).body);
  expect(list.body.results.map((e: { id: string }) => e.id)).toEqual([id]);
  expect((await first.app.route('GET', 'emails/?status=opened')).status).toBe(400);

  for (const [method, path, body] of [
    ['GET', `emails/${id}/`, undefined],
    ['PATCH', `emails/${id}/`, { subject: 'Taken over' }],
    ['POST', `emails/${id}/approve/`, { schedule: 'now' }],
    ['POST', `emails/${id}/cancel/`, undefined],
  ] as const) {
    const r = await second.app.route(method, path, body);
    expect([method, path, r.status]).toEqual([method, path, 404]);
  }
  expect((await second.app.route('GET', 'emails/')).body.count).toBe(0);
  expect((await second.app.route('GET', 'emails/em_not-an-id/')).status).toBe(404);
  expect((await reply(first.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id } } }))).body.subject).toBe(viaKey.body.subject);

  expect((await first.app.route('POST', `emails/${id}/approve/`, { schedule: 'at' })).status).toBe(400);
  const cancelled = await first.app.route('POST', `emails/${id}/cancel/`);
  expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
  expect((await first.app.route('PATCH', `emails/${id}/`, { subject: 'Too late' })).status).toBe(409);
}, 90_000);

test('in Chromium: a draft is edited, approved and sent; another is cancelled; another account sees none of them', async () => {
  const t = await owner('queue.owner@tenant.test');
  const other = await owner('queue.other@tenant.test');
  const sentTo = 'queue.sent@prospect.test';
  const toSend = await draft(t, sentTo);
  const toCancel = await draft(t, 'queue.cancelled@prospect.test');
  await settle();

  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await signIn(page, t.email);
  await page.getByRole('link', { name: 'Outreach review' }).click();
  await page.getByRole('heading', { name: 'Outreach review' }).waitFor();
  const card = page.locator(`[data-email="${toSend}"]`);
  await card.waitFor();
  expect(await page.locator('[data-email]').count()).toBe(2);
  await page.screenshot({ path: join(SHOTS, 'outreach-review.png'), fullPage: true });

  await card.getByLabel('Subject').fill('');
  await card.getByRole('button', { name: 'Save changes' }).click();
  expect(await card.getByLabel('Subject').evaluate((el) => (el as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
  await card.getByLabel('Subject').fill('A quick idea for Acme Robotics');
  await card.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved the draft' }).waitFor();
  expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: toSend } } }))).body.subject).toBe('A quick idea for Acme Robotics');

  // The save reloads the list, and the card comes back with the saved subject (a new card): choose after that.
  await page.waitForLoadState('networkidle');
  await card.getByLabel('Send', { exact: true }).selectOption('at');
  await card.getByLabel('Send at (your time)').waitFor();
  await card.getByLabel('Send', { exact: true }).selectOption('now');
  await card.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('status').filter({ hasText: 'Approved the email' }).waitFor();
  await settle();
  expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: toSend } } }))).body.status).toBe('sent');
  expect((await mailbox()).filter((m) => m.to.includes(sentTo)).map((m) => m.subject)).toEqual(['A quick idea for Acme Robotics']);

  await page.locator(`[data-email="${toCancel}"]`).getByRole('button', { name: 'Cancel email' }).click();
  await page.getByRole('status').filter({ hasText: 'Cancelled the email' }).waitFor();
  expect((await reply(t.client.typed.GET('/api/public/v1/emails/{id}/', { params: { path: { id: toCancel } } }))).body.status).toBe('cancelled');
  await page.getByRole('button', { name: 'Sent and opened' }).click();
  await page.locator(`[data-email="${toSend}"]`).getByText('sent', { exact: true }).waitFor();
  await page.screenshot({ path: join(SHOTS, 'outreach-sent.png'), fullPage: true });

  await page.setViewportSize({ width: 375, height: 800 });
  await page.getByRole('button', { name: 'Cancelled' }).click();
  await page.locator(`[data-email="${toCancel}"]`).waitFor();
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  await page.screenshot({ path: join(SHOTS, 'outreach-375px.png'), fullPage: true });
  await page.close();

  const theirs = await context.newPage();
  await signIn(theirs, other.email);
  await theirs.getByRole('link', { name: 'Outreach review' }).click();
  for (const view of ['Drafts to review', 'Sent and opened', 'Cancelled']) {
    await theirs.getByRole('button', { name: view }).click();
    await theirs.getByText('No emails here.').waitFor();
  }
  expect(await theirs.locator('[data-email]').count()).toBe(0);
  expect((await other.app.route('GET', `emails/${toSend}/`)).status).toBe(404);
  await theirs.close();
  expect(blocked).toEqual([]);
}, 120_000);
