import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import Papa from 'papaparse';
import { APP_SHOTS as SHOTS, appBrowser, signIn as signInToApp } from '../support/browser.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, startTestServices, reply, type TestServices } from '../support/local.js';
import { newAppTenant } from '../support/app-users.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The web app's search-jobs and sequences pages against one local stack with its workers: a people search
 * and a sequence started through the public API with the user's account key, then seen (and a webhook
 * redelivered) in headless Chromium; then the same started from the app itself (a search with its price,
 * a sequence from a CSV file with its report and cost, approved, exported and cancelled). Screenshots go to
 * test-artifacts/app/.
 */
let services: TestServices | undefined;
let stack: LocalStack;
let admin: Client;
let receiver: WebhookReceiver;
let browser: BrowserContext;
const blocked: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  const started = await startTestServices({ userPool: true, throttleMultiplier: 100, directory: { people: 200, seed: 7 }, webhookReceiver: true });
  ({ stack, admin, receiver } = services = started);
  browser = await appBrowser(started.dir, { width: 375, blocked, consoleErrors });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await services?.stop();
});

const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });

const signIn = (page: Page, email: string) => signInToApp(page, stack.appUrl, email);

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
  expect((await owner.app.route('GET', `jobs/${jobId}/`)).body).toEqual({ ...polled, request: { query: 'software engineers', max_results: 25, webhook_url: receiver.url } });
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

/** A file for the file picker. */
const csvFile = (name: string, text: string | Buffer, mimeType = 'text/csv') => ({ name, mimeType, buffer: Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8') });

/** The rows of a CSV the app offered as a download. */
async function downloaded(page: Page, button: Locator): Promise<Record<string, string>[]> {
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const text = readFileSync((await file.path())!, 'utf8');
  expect(text.charCodeAt(0)).toBe(0xfeff);
  return Papa.parse<Record<string, string>>(text.slice(1), { header: true, skipEmptyLines: true }).data;
}

const narrow = async (page: Page) => expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

test('from the app: a people search started with its price, its result exported; a sequence from a CSV file with good and bad rows, approved, exported and cancelled', async () => {
  const owner = await newAppTenant(stack, 'csv.owner@tenant.test', { name: 'Csv Co' }, { sender: { email: 'rep@csv.test', type: 'google' } });
  receiver.setSecrets([(await owner.app.route('POST', 'webhook-secrets/')).body.secret as string]);
  const favicon = await fetch(`${stack.appUrl}favicon.svg`);
  expect([favicon.status, favicon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);

  const page = await browser.newPage();
  await page.goto(stack.appUrl);
  await page.getByRole('heading', { name: 'Sign in to People Search & Outreach' }).waitFor();
  await signIn(page, owner.email);
  await expect(page.getByTestId('x-axis-label').textContent()).resolves.toBe('Day (UTC)');
  await expect(page.getByTestId('y-axis-label').textContent()).resolves.toBe('Credits charged');

  // A people search: the price before the confirm, then the job's page with its query and result.
  await page.getByRole('link', { name: 'New search' }).click();
  await page.getByLabel('Kind').selectOption('deep');
  await expect(page.getByTestId('search-price').textContent()).resolves.toContain('200 credits for a successful standard run');
  await page.getByLabel('Kind').selectOption('people');
  await page.getByLabel('Who are you looking for?').fill('software engineers');
  await page.getByLabel('Most leads (25 to 100)').fill('30');
  await page.getByLabel('Webhook URL for the result').fill(receiver.url);
  await expect(page.getByTestId('search-price').textContent()).resolves.toContain('at most 30 credits');
  await page.getByRole('button', { name: 'Review price' }).click();
  await narrow(page);
  await page.screenshot({ path: join(SHOTS, 'new-search.png'), fullPage: true });
  await page.getByRole('button', { name: 'Start search (30 credits reserved)' }).click();
  await page.waitForURL(/#\/jobs\/dj_/);
  const jobId = page.url().split('#/jobs/')[1]!;
  await settle();
  await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
  await expect(page.getByTestId('job-query').textContent()).resolves.toBe('software engineers');
  const polled = (await reply(owner.client.typed.GET('/api/public/v1/search/{job_id}/', { params: { path: { job_id: jobId } } }))).body;
  const leads = polled.result.results as { full_name: string; professional_url: string; location: string; company: { name: string; domain: string } }[];
  expect(leads.length).toBeGreaterThan(0);
  // Charged to the account exactly as the API charges: 30 reserved, 1 per lead kept.
  const [charge] = (await owner.app.route('GET', 'charges/?operation=people_search')).body.results;
  expect([charge.reference, charge.reserved, charge.charged, charge.charge_status]).toEqual([jobId, 30, leads.length, 'charged']);
  await expect(page.locator('[data-testid="job-results"] tbody tr').count()).resolves.toBe(leads.length);
  await expect(page.locator('[data-testid="job-results"] a').first().getAttribute('href')).resolves.toBe(`https://${leads[0]!.professional_url}`);
  const exported = await downloaded(page, page.getByRole('button', { name: 'Export results (CSV)' }));
  expect(exported.map((r) => [r.full_name, r.professional_url, r.location, r.company_name, r.company_domain])).toEqual(leads.map((l) => [l.full_name, l.professional_url, l.location, l.company.name, l.company.domain]));
  await narrow(page);

  // A sequence from a CSV file. Bad files are refused with a message, and nothing is created.
  await page.getByRole('link', { name: 'Sequences' }).click();
  await page.getByRole('link', { name: 'New sequence' }).click();
  await page.getByLabel('Name (optional)').fill('From a CSV');
  await page.getByLabel('Instructions for the emails').fill('Introduce our warehouse automation platform and ask for a short call.');
  await page.getByLabel('Steps, the intro included (1 to 4)').selectOption('2');
  const picker = page.getByLabel('CSV file (header row, UTF-8, up to 10,000 rows)');
  const refused = async (file: ReturnType<typeof csvFile>, message: string) => {
    await picker.setInputFiles(file);
    await page.getByTestId('file-error').filter({ hasText: message }).waitFor();
  };
  await refused(csvFile('photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png'), 'photo.png is not a CSV file');
  await refused(csvFile('latin1.csv', Buffer.from('email,first_name\nzoe@prospect.test,Zo\xe9\n', 'latin1')), 'latin1.csv is not UTF-8 text');
  await refused(csvFile('names.csv', 'name,company\nAna,Acme\n'), 'Missing required column: email and first name');
  await refused(csvFile('long.csv', `email,first_name\n${'a@prospect.test,A\n'.repeat(10_001)}`), 'more than 10,000 rows');
  const good = ['ana@prospect.test,Ana,Lee,Acme Robotics', 'ben@prospect.test,Ben,Ng,Acme Robotics', 'cy@prospect.test,Cy,Ode,Beta Freight'];
  const bad = ['not-an-email,Dee,,Acme Robotics', 'ana@prospect.test,Ana,Again,Acme Robotics', 'eve@unknown-company.test,Eve,,'];
  await picker.setInputFiles(csvFile('contacts.csv', ['email,first_name,last_name,company', good[0], bad[0], good[1], bad[1], good[2], bad[2]].join('\r\n')));
  await expect(page.locator('#map-company_name').inputValue()).resolves.toBe('company');
  await expect(page.locator('[data-testid="import-preview"] tbody tr').count()).resolves.toBe(5);
  await page.getByRole('button', { name: 'Check 6 rows' }).click();
  await page.getByTestId('import-report').waitFor();
  await expect(page.getByTestId('eligible-count').textContent()).resolves.toBe('3');
  const rejected = await page.locator('[data-testid="rejected-rows"] tbody tr').allInnerTexts();
  expect(rejected.map((r) => r.split('\t').slice(0, 2).concat(r.match(/invalid_contact|not_enriched|already_in_automation|recently_contacted/)![0]))).toEqual([
    ['3', 'not-an-email', 'invalid_contact'],
    ['5', 'ana@prospect.test', 'invalid_contact'],
    ['7', 'eve@unknown-company.test', 'not_enriched'],
  ]);
  await expect(page.getByTestId('import-cost').textContent()).resolves.toContain('3 contacts × 2 steps × 2 credits = 12 credits');
  await narrow(page);
  await page.screenshot({ path: join(SHOTS, 'csv-import-report.png'), fullPage: true });
  expect((await owner.app.route('GET', 'sequences/')).body.results).toEqual([]);
  await page.getByRole('button', { name: 'Add 3 contacts (12 credits)' }).click();
  await page.getByTestId('import-outcome').filter({ hasText: '3 contacts added.' }).waitFor();
  await page.getByRole('button', { name: 'Open the sequence' }).click();
  await page.waitForURL(/#\/sequences\/sq_/);
  const sequenceId = page.url().split('#/sequences/')[1]!;
  const [reserve] = (await owner.app.route('GET', 'charges/?operation=sequence')).body.results;
  expect([reserve.reference, reserve.reserved]).toEqual([sequenceId, 12]);

  await settle();
  await page.getByRole('button', { name: 'Refresh (drafting…)' }).click();
  await page.getByTestId('sequence-status').filter({ hasText: 'pending_review' }).waitFor();
  await expect(page.locator('ol.steps').first().locator('li').allInnerTexts()).resolves.toEqual([expect.stringMatching(/^Step 0 \(intro\): pending_review/), expect.stringMatching(/^Step 1: pending_review/)]);
  await page.getByRole('button', { name: 'Approve and start sending' }).click();
  await page.getByTestId('sequence-status').filter({ hasText: 'active' }).waitFor();
  const read = (await owner.app.route('GET', `sequences/${sequenceId}/`)).body;
  expect(read.status).toBe('active');
  const enrollments = await downloaded(page, page.getByRole('button', { name: 'Export enrollments (CSV)' }));
  type Step = { step: number; status: string; subject: string };
  const fromApi = (read.enrollments as { contact: { email: string }; status: string; emails: Step[] }[]).map((e) => {
    const step = (n: number) => e.emails.find((m) => m.step === n)!;
    return [e.contact.email, e.status, step(0).status, step(0).subject, step(1).status];
  });
  const fromCsv = enrollments.map((r) => [r.email, r.enrollment_status, r.step_0_status, r.step_0_subject, r.step_1_status]);
  const byEmail = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
  expect(fromCsv.sort(byEmail)).toEqual(fromApi.sort(byEmail));
  expect(enrollments.map((r) => r.email).sort()).toEqual(['ana@prospect.test', 'ben@prospect.test', 'cy@prospect.test']);
  await narrow(page);
  await page.screenshot({ path: join(SHOTS, 'sequence-active.png'), fullPage: true });
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Cancel sequence' }).click();
  await page.getByTestId('sequence-status').filter({ hasText: 'cancelled' }).waitFor();
  expect((await owner.app.route('GET', `sequences/${sequenceId}/`)).body.status).toBe('cancelled');

  // Another account's user: the sequence is not found by any app route; agentic search is not enrolled (404);
  // an invalid paid call from the app is a 400 that leaves a released audit record, as from the API.
  const stranger = await newAppTenant(stack, 'csv.stranger@tenant.test');
  const contact = { email: 'x@prospect.test', first_name: 'X', company_name: 'Acme' };
  for (const [path, body] of [['contact-checks/', { contacts: [contact], sequence_id: sequenceId }], [`sequences/${sequenceId}/contacts/`, { contacts: [contact] }], [`sequences/${sequenceId}/approve/`, undefined], [`sequences/${sequenceId}/cancel/`, undefined], ['agentic-search/', { query: 'x', webhook_url: receiver.url }]] as const) {
    expect([path, (await stranger.app.route('POST', path, body)).status]).toEqual([path, 404]);
  }
  const invalid = await stranger.app.route('POST', 'search/', { query: 'engineers', max_results: 5, webhook_url: receiver.url });
  expect([invalid.status, invalid.body.error.details[0].path]).toEqual([400, 'max_results']);
  expect((await stranger.app.route('GET', 'charges/')).body.results.map((c: { operation: string; charge_status: string; charged: number }) => [c.operation, c.charge_status, c.charged])).toEqual([['people_search', 'released', 0]]);

  // The ledger by operation name, filtered by one of them.
  await page.getByRole('link', { name: 'Credits' }).click();
  await page.getByLabel('Operation').selectOption('sequence');
  await page.getByRole('button', { name: 'Apply' }).click();
  // The people search's row leaves once the filtered page is in; the sequence's stays.
  await page.locator('[data-testid="ledger"] tbody tr').filter({ hasText: 'People search' }).first().waitFor({ state: 'detached' });
  await expect(page.locator('[data-testid="ledger"] tbody tr').allInnerTexts()).resolves.toEqual([expect.stringMatching(/Sequence drafts\s+sq_\w+\s+(pending|charged)\s+12\s/)]);
  await narrow(page);
  await page.close();

  expect(consoleErrors.filter((e) => !e.includes('404'))).toEqual([]);
  expect(blocked).toEqual([]);
}, 120_000);
