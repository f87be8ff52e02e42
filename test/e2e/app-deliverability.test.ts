import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { APP_SHOTS as SHOTS, appBrowser, signIn as signInToApp } from '../support/browser.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, serviceClockNow, startTestServices, toNextNoonUtc, type TestServices } from '../support/local.js';
import { newAppTenant } from '../support/app-users.js';
import { sesEventFor } from '../support/ses-events.js';

/**
 * The web app's deliverability page (docs/outreach.md "Warm-up, engagement throttle and deliverability") in headless
 * Chromium, against the local stack on the service clock: a new mailbox sends five emails on its first day
 * (a hard bounce, a soft bounce, a complaint, two replies, two deliveries, an open and an unsubscribe among
 * them) and one a day for the next seven; the page shows the warm-up stage, the effective and configured
 * limit, and each day's numbers in its table, paged a week at a time. Another account's mailbox is neither
 * listed nor readable. Screenshots go to test-artifacts/app/.
 */
let services: TestServices | undefined;
let stack: LocalStack;
let admin: Client;
let browser: BrowserContext;
const blocked: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  services = await startTestServices({ userPool: true, throttleMultiplier: 1000, directory: { people: 50, seed: 5 } });
  ({ stack, admin } = services);
  browser = await appBrowser(services.dir, { width: 375, blocked, consoleErrors });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await services?.stop();
});

type Tenant = Awaited<ReturnType<typeof newAppTenant>>;
let seq = 0;
const settle = async () => expect((await admin.console('POST', 'dev/settle/')).body).toEqual({ idle: true });
const clockNow = () => serviceClockNow(admin);
const toNextNoon = () => toNextNoonUtc(admin);
/** `n` emails drafted and approved to send now, then sent; their ids. */
async function sent(t: Tenant, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.client.api('POST', 'emails/', { to: { email: `lead${++seq}.${Date.now()}@prospect.test`, first_name: 'Jane', company_name: 'Acme' }, instructions: 'A short hello.' });
    expect(r.status).toBe(202);
    ids.push(r.body.id);
  }
  await settle();
  for (const id of ids) expect((await t.client.api('POST', `emails/${id}/approve/`, { schedule: 'now' })).status).toBe(200);
  await settle();
  for (const id of ids) expect((await t.client.api('GET', `emails/${id}/`)).body.status).toBe('sent');
  return ids;
}
const getEmail = async (t: Tenant, id: string) => (await t.client.api('GET', `emails/${id}/`)).body;
const providerIdOf = (emailId: string) => stack.sentMail.find((s) => s.raw?.toString('utf8').includes(`<${emailId}.`))!.provider_message_id!;
const inject = async (event: Record<string, unknown>) => expect((await admin.console('POST', 'dev/ses-events/', event)).status).toBe(202);

const signIn = (page: Page, email: string) => signInToApp(page, stack.appUrl, email);

/** The table's rows as the page shows them: the day, then each counter's cell read by its column. */
async function rows(page: Page): Promise<Record<string, string>[]> {
  return page.locator('[data-testid="deliverability-days"] tbody tr[data-day]').evaluateAll((trs) =>
    trs.map((tr) => {
      const row: Record<string, string> = { date: tr.querySelector('th')!.textContent! };
      const headers = [...tr.closest('table')!.querySelectorAll('thead th')].map((th) => th.textContent!);
      tr.querySelectorAll('td').forEach((td: { textContent: string | null }, i: number) => (row[headers[i + 1]!] = td.textContent!));
      return row;
    }),
  );
}
const dayRow = (date: string, n: Partial<Record<string, number>>) => ({
  date,
  ...Object.fromEntries(['Sent', 'Delivered', 'Hard bounces', 'Soft bounces', 'Complaints', 'Opens', 'Replies', 'Unsubscribes'].map((h) => [h, String(n[h] ?? 0)])),
});

test('the deliverability page: warm-up stage, effective limit and each day’s numbers after known sends, bounces, a complaint and replies, a week a page; another account’s mailbox is not shown', async () => {
  const owner = await newAppTenant(stack, 'deliv.owner@tenant.test', { name: 'Deliv Co' }, { sender: { email: 'rep@deliv-seller.test', type: 'google', daily_limit: 100 } });
  const other = await newAppTenant(stack, 'deliv.other@tenant.test', { name: 'Other Co' }, { sender: { email: 'rep@other-seller.test', type: 'google' } });
  const eaId = (await owner.app.route('GET', 'sending-accounts/')).body.results[0].id as string;
  const otherEaId = (await other.app.route('GET', 'sending-accounts/')).body.results[0].id as string;

  // Day 1: five sends. a hard-bounces (the event twice: counted once), b soft-bounces, c complains, d and e
  // reply (d twice: counted once) and are delivered, e is opened (twice: once) and unsubscribes.
  const first = (await clockNow()).toISOString().slice(0, 10);
  const [a, b, c, d, e] = await Promise.all((await sent(owner, 5)).map((id) => getEmail(owner, id)));
  const hard = sesEventFor('bounce-permanent', { messageId: providerIdOf(a.id), recipient: a.to.email });
  await inject(hard);
  await inject(hard);
  await inject(sesEventFor('bounce-transient', { messageId: providerIdOf(b.id), recipient: b.to.email }));
  await inject(sesEventFor('complaint', { messageId: providerIdOf(c.id), recipient: c.to.email }));
  for (const x of [d, e]) await inject(sesEventFor('delivery', { messageId: providerIdOf(x.id), recipient: x.to.email }));
  const mailbox = (await admin.console('GET', 'dev/mailbox/')).body.messages as { message_id: string; html: string }[];
  const messageOf = (id: string) => mailbox.find((m) => m.message_id.startsWith(`<${id}.`))!;
  for (const [x, times] of [[d, 2], [e, 1]] as const) {
    for (let i = 0; i < times; i++) {
      const r = await admin.console('POST', 'dev/inbound/', { from: `Jane <${x.to.email}>`, to: x.from_email, subject: 'Re: hello', text: 'Sounds good, let us talk.', in_reply_to: messageOf(x.id).message_id });
      expect(r.body).toMatchObject({ matched: true, classification: 'reply' });
    }
  }
  const token = messageOf(e.id).html.match(/\/o\/([A-Za-z0-9_-]+)\//)![1]!;
  for (let i = 0; i < 2; i++) await fetch(`${stack.baseUrl}o/${token}/`);
  await fetch(`${stack.baseUrl}u/${token}/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
  await settle();
  // Days 2 to 8: one send a day.
  const later: string[] = [];
  for (let i = 0; i < 7; i++) {
    later.unshift(await toNextNoon());
    await sent(owner, 1);
  }
  const today = later[0]!;
  // The other account's mailbox sends too: its day must not show on the owner's page.
  await sent(other, 2);

  // Seven healthy days since the start: warm-up day 8, whose ramp step (60) is below the configured 100.
  const record = (await owner.app.route('GET', `sending-accounts/${eaId}/deliverability/?limit=7`)).body;
  expect(record.account).toMatchObject({ daily_limit: 60, configured_daily_limit: 100, health: 'warming_up', sent_today: 1, warmup: { day: 8, ramp_limit: 60, complete: false } });

  const page = browser.pages()[0] ?? (await browser.newPage());
  await signIn(page, owner.email);
  await page.getByRole('link', { name: 'Deliverability' }).click();
  const list = page.getByTestId('deliv-accounts');
  await list.waitFor();
  await expect(list.locator('tbody tr').count()).resolves.toBe(1);
  await expect(list.textContent()).resolves.toContain('rep@deliv-seller.test');
  await expect(list.textContent()).resolves.not.toContain('rep@other-seller.test');
  await list.getByRole('link', { name: 'rep@deliv-seller.test' }).click();
  expect(page.url()).toBe(`${stack.appUrl}#/deliverability/${eaId}`);

  // The summary: stage, effective and configured limit, health and its reason.
  await page.getByTestId('deliv-summary').waitFor();
  await expect(page.getByRole('heading', { level: 2 }).textContent()).resolves.toBe('Deliverability — rep@deliv-seller.test');
  await expect(page.getByTestId('health').textContent()).resolves.toBe('warming_up');
  await expect(page.getByTestId('effective-limit').textContent()).resolves.toBe('60');
  await expect(page.getByTestId('configured-limit').textContent()).resolves.toBe('100');
  await expect(page.getByTestId('warmup-stage').textContent()).resolves.toBe('Day 8 (the ramp allows 60 a day)');
  await expect(page.getByTestId('health-reason').textContent()).resolves.toBe('Warming up: day 8 of the ramp allows 60 a day, below the configured 100.');

  // The default window (30 days): all eight days on one page, newest first.
  const all = await rows(page);
  expect(all).toEqual([...later.map((day) => dayRow(day, { Sent: 1 })), dayRow(first, { Sent: 5, Delivered: 2, 'Hard bounces': 1, 'Soft bounces': 1, Complaints: 1, Opens: 1, Replies: 2, Unsubscribes: 1 })]);
  await expect(page.getByRole('button', { name: 'Older' }).isDisabled()).resolves.toBe(true);
  // The chart: one group of four bars a day, with its text alternative.
  await expect(page.locator('svg.chart rect').count()).resolves.toBe(8 * 4);
  await expect(page.getByRole('img', { name: 'Sends, bounces, complaints and replies per day' }).count()).resolves.toBe(1);
  await expect(page.getByTestId('deliv-chart-summary').textContent()).resolves.toBe(
    `From ${first} to ${today}: 12 sent, 2 bounced, 1 complained, 2 replied. Each day's numbers are in the table below.`,
  );
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  await page.screenshot({ path: join(SHOTS, 'deliverability.png'), fullPage: true });

  // A week a page: the seven newest days, then "Older" shows the first day's numbers.
  await page.getByLabel('Days per page').selectOption('7');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.locator('[data-testid="deliverability-days"] tbody tr[data-day]').nth(7).waitFor({ state: 'detached' });
  expect(await rows(page)).toEqual(later.map((day) => dayRow(day, { Sent: 1 })));
  await page.getByRole('button', { name: 'Older' }).click();
  await page.locator(`tr[data-day="${first}"]`).waitFor();
  expect(await rows(page)).toEqual([dayRow(first, { Sent: 5, Delivered: 2, 'Hard bounces': 1, 'Soft bounces': 1, Complaints: 1, Opens: 1, Replies: 2, Unsubscribes: 1 })]);
  await expect(page.getByRole('button', { name: 'Older' }).isDisabled()).resolves.toBe(true);
  await expect(page.getByTestId('deliv-chart-summary').textContent()).resolves.toBe(`From ${first} to ${first}: 5 sent, 2 bounced, 1 complained, 2 replied. Each day's numbers are in the table below.`);
  await page.screenshot({ path: join(SHOTS, 'deliverability-older.png'), fullPage: true });
  await page.getByRole('button', { name: 'Newer' }).click();
  await page.locator(`tr[data-day="${today}"]`).waitFor();
  // A window from one day to the day before: refused with the route's reason, said on the page.
  await page.getByLabel('From (UTC day)').fill(today);
  await page.getByLabel('To (UTC day)').fill(first);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('alert').filter({ hasText: 'from must not be after to' }).waitFor();
  // From the first day to the second: those two days only.
  await page.getByLabel('From (UTC day)').fill(first);
  await page.getByLabel('To (UTC day)').fill(later.at(-1)!);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.locator(`tr[data-day="${today}"]`).waitFor({ state: 'detached' });
  expect(await rows(page)).toEqual([dayRow(later.at(-1)!, { Sent: 1 }), dayRow(first, { Sent: 5, Delivered: 2, 'Hard bounces': 1, 'Soft bounces': 1, Complaints: 1, Opens: 1, Replies: 2, Unsubscribes: 1 })]);
  await expect(page.getByRole('alert').count()).resolves.toBe(0);

  // The other account's mailbox, by its id, from the owner's session: not found, no numbers.
  await page.goto(`${stack.appUrl}#/deliverability/${otherEaId}`);
  await page.getByRole('alert').filter({ hasText: 'Sending account not found.' }).waitFor();
  await expect(page.locator('[data-testid="deliverability-days"]').count()).resolves.toBe(0);
  await expect(page.locator('body').textContent()).resolves.not.toContain('rep@other-seller.test');

  // The other account's user sees only its own mailbox, and not the owner's by id.
  await page.goto(`${stack.appUrl}#/overview`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, other.email);
  await page.getByRole('link', { name: 'Deliverability' }).click();
  await page.getByTestId('deliv-accounts').waitFor();
  await expect(page.getByTestId('deliv-accounts').textContent()).resolves.not.toContain('rep@deliv-seller.test');
  await page.goto(`${stack.appUrl}#/deliverability/${eaId}`);
  await page.getByRole('alert').filter({ hasText: 'Sending account not found.' }).waitFor();
  await expect(page.locator('body').textContent()).resolves.not.toContain('rep@deliv-seller.test');

  expect(consoleErrors.filter((m) => !m.includes('404'))).toEqual([]);
  expect(blocked).toEqual([]);
}, 180_000);
