import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { loopbackBrowser } from '../support/browser.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { Client, ROOT, startTestStack, reply } from '../support/local.js';
import { newAppTenant, USER_PASSWORD } from '../support/app-users.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The web app's search-jobs and sequences pages against one local stack with its workers: a people search
 * and a sequence started through the public API with the user's account key, then seen (and a webhook
 * redelivered) in headless Chromium. Screenshots go to test-artifacts/app/.
 */
const SHOTS = join(ROOT, 'test-artifacts/app');
const dir = mkdtempSync(join(tmpdir(), 'app-jobs-'));
let stack: LocalStack;
let admin: Client;
let receiver: WebhookReceiver;
let profile: string;
let browser: BrowserContext;
const blocked: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ userPool: true, throttleMultiplier: 100 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'directory.jsonl'), people: 200, seed: 7 } });
  admin = new Client(stack);
  receiver = await new WebhookReceiver([]).start();
  profile = mkdtempSync(join(tmpdir(), 'app-jobs-chromium-'));
  mkdirSync(SHOTS, { recursive: true });
  browser = await loopbackBrowser(profile, { width: 375, blocked, consoleErrors });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await stack?.stop();
  rmSync(profile, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(stack.appUrl);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(USER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: /^Overview/ }).waitFor();
}

test('a search job with its results and webhook deliveries, a redelivery from the page, a sequence with its enrollments; another account sees none of them', async () => {
  const owner = await newAppTenant(stack, 'jobs.owner@tenant.test', { name: 'Jobs Co' }, { sender: { email: 'rep@jobs.test', type: 'google' } });
  const other = await newAppTenant(stack, 'jobs.other@tenant.test', { name: 'Other Co' });
  const secret = (await owner.app.route('POST', 'webhook-secrets/')).body.secret as string;
  receiver.setSecrets([secret]);

  const search = await reply(owner.client.typed.POST('/api/public/v1/search/', { body: { query: 'software engineers', max_results: 25, webhook_url: receiver.url } }));
  expect(search.status).toBe(202);
  const second = await reply(owner.client.typed.POST('/api/public/v1/search/', { body: { query: 'product managers', max_results: 25, webhook_url: receiver.url } }));
  expect(second.status).toBe(202);
  const contacts = ['ana@prospect.test', 'ben@prospect.test'].map((email) => ({ email, first_name: 'Ana', last_name: 'Lee', company_name: 'Acme Robotics' }));
  const sequence = await reply(owner.client.typed.POST('/api/public/v1/sequences/', { body: { name: 'Warehouse intro', instructions: 'Introduce our warehouse automation platform and ask for a short call.', contacts, steps: 2 } }));
  expect(sequence.status).toBe(202);
  await settle();

  const jobId = search.body.id as string;
  const polled = (await reply(owner.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }))).body;
  expect(polled.status).toBe('completed');
  expect(polled.result.results.length).toBeGreaterThan(0);
  expect((await owner.app.route('GET', `jobs/${jobId}/`)).body).toEqual(polled);
  expect(receiver.for(jobId).map((r) => r.verified)).toEqual([true]);
  const answered = receiver.for(jobId)[0]!.status;
  const newest = await owner.app.route('GET', 'jobs/?limit=1');
  expect(newest.body.results).toEqual([expect.objectContaining({ id: second.body.id, tier: 'people_search', status: 'completed', query: 'product managers', has_webhook: true })]);
  const older = await owner.app.route('GET', `jobs/?limit=1&cursor=${newest.body.next_cursor}`);
  expect(older.body.results).toEqual([expect.objectContaining({ id: jobId, has_webhook: true, webhook_status: 'delivered', leads_returned: polled.leads_returned })]);
  expect((await owner.app.route('GET', 'jobs/?cursor=not-a-cursor')).status).toBe(400);

  // The customer API of another account: 404 on every id, and nothing in its lists.
  const sequenceId = sequence.body.id as string;
  for (const path of [`jobs/${jobId}/`, `jobs/${jobId}/webhook-deliveries/`, `sequences/${sequenceId}/`, `sequences/${sequenceId}/replies/`]) {
    expect([path, (await other.app.route('GET', path)).status]).toEqual([path, 404]);
  }
  expect((await other.app.route('POST', `jobs/${jobId}/webhook-deliveries/redeliver/`)).status).toBe(404);
  expect((await other.app.route('GET', 'jobs/')).body.results).toEqual([]);
  expect((await other.app.route('GET', 'sequences/')).body.results).toEqual([]);

  const page = browser.pages()[0] ?? (await browser.newPage());
  await signIn(page, owner.email);
  await page.getByRole('link', { name: 'Search jobs' }).click();
  await page.locator('[data-testid="jobs"] tbody tr').first().waitFor();
  await expect(page.locator('[data-testid="jobs"] tbody tr').count()).resolves.toBe(2);
  await expect(page.locator('[data-testid="jobs"]').textContent()).resolves.toContain('software engineers');
  await page.screenshot({ path: join(SHOTS, 'jobs.png'), fullPage: true });

  await page.locator(`a[href="#/jobs/${jobId}"]`).click();
  await page.locator('[data-testid="deliveries"] tbody tr').first().waitFor();
  await expect(page.getByTestId('job-status').textContent()).resolves.toBe('completed');
  await expect(page.locator('[data-testid="job-results"] tbody tr').count()).resolves.toBe(polled.result.results.length);
  await expect(page.locator('[data-testid="job-results"]').textContent()).resolves.toContain(polled.result.results[0].full_name);
  await expect(page.locator('[data-testid="deliveries"] tbody tr').first().locator('td').nth(2).textContent()).resolves.toBe(String(answered));
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  await page.screenshot({ path: join(SHOTS, 'job.png'), fullPage: true });

  // Redeliver from the keyboard; the delivery arrives signed as usual and the log shows it.
  await page.getByRole('button', { name: /^Redeliver/ }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Delivery 2 queued.').waitFor();
  await page.locator('[data-testid="deliveries"] tbody tr').nth(1).waitFor({ timeout: 30_000 });
  await expect(page.getByTestId('delivery-status').textContent()).resolves.toBe('delivered');
  const deliveries = receiver.for(jobId);
  expect(deliveries.map((d) => [d.verified, d.headers['webhook-id'], d.body.event_type])).toEqual([
    [true, `msg_${jobId}`, 'search.completed'],
    [true, `msg_${jobId}`, 'search.completed'],
  ]);
  expect(deliveries[1]!.body).toEqual(deliveries[0]!.body);
  await page.screenshot({ path: join(SHOTS, 'job-redelivered.png'), fullPage: true });
  const again = await owner.app.route('POST', `jobs/${jobId}/webhook-deliveries/redeliver/`);
  expect([again.status, again.body]).toEqual([202, { job_id: jobId, attempt: 3, status: 'queued' }]);
  await settle();
  expect(receiver.for(jobId)).toHaveLength(3);

  await page.getByRole('link', { name: 'Sequences' }).click();
  await page.locator(`a[href="#/sequences/${sequenceId}"]`).click();
  await page.locator('[data-testid="enrollments"] tbody tr').nth(1).waitFor();
  const enrollments = page.locator('[data-testid="enrollments"]');
  for (const c of contacts) await expect(enrollments.textContent()).resolves.toContain(c.email);
  await expect(enrollments.locator('ol.steps').first().locator('li').count()).resolves.toBe(2);
  await page.getByTestId('no-replies').waitFor();
  await page.screenshot({ path: join(SHOTS, 'sequence.png'), fullPage: true });

  // The other account's user: empty lists in the app.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, other.email);
  await page.getByRole('link', { name: 'Search jobs' }).click();
  await page.getByText('No jobs yet.').waitFor();
  await page.getByRole('link', { name: 'Sequences' }).click();
  await page.getByText('No sequences yet.').waitFor();
  await page.goto(`${stack.appUrl}#/jobs/${jobId}`);
  await page.getByRole('alert').waitFor();
  await page.screenshot({ path: join(SHOTS, 'job-of-another-account.png'), fullPage: true });

  expect(consoleErrors.filter((e) => !e.includes('404'))).toEqual([]);
  expect(blocked).toEqual([]);
}, 120_000);
