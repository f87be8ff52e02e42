import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { APP_SHOTS, loopbackBrowser, signIn as signInToApp } from '../support/browser.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { Client, startTestStack, reply } from '../support/local.js';
import { AppClient, newAppTenant, USER_PASSWORD } from '../support/app-users.js';

/**
 * The customer web app against one local stack: its API with tokens from the local user pool (cognito-local),
 * verified by the gateway through the pool's JWKS, the account always the token's; then the app itself in
 * headless Chromium. Screenshots of every page go to test-artifacts/app/.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({ userPool: true, throttleMultiplier: 100 });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test('no token, a malformed one, a forged one and a non-Bearer one are the authorizer\'s 401 {"message":"Unauthorized"}', async () => {
  const first = await newAppTenant(stack, 'first.api@tenant.test');
  const [header, payload] = first.token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, 'custom:account_id': 'acct_01jzzzzzzzzzzzzzzzzzzzzzzz' })).toString('base64url')}.${first.token.split('.')[2]}`;
  for (const token of [null, 'not-a-jwt', forged]) {
    const r = await new AppClient(stack, token).route('GET', 'api-keys/');
    expect([token?.slice(0, 10), r.status, r.body]).toEqual([token?.slice(0, 10), 401, { message: 'Unauthorized' }]);
  }
  const basic = await first.app.call('GET', `http://localhost:${stack.port}/api/app/v1/account/`, undefined, { authorization: `Basic ${first.token}` });
  expect(basic.status).toBe(401);
}, 60_000);

test('the account is the token\'s: keys, secrets and charges of another account are never seen, and its ids are 404', async () => {
  const first = await newAppTenant(stack, 'first.owner@tenant.test', { name: 'First' });
  const second = await newAppTenant(stack, 'second.owner@tenant.test', { name: 'Second' });

  const account = await first.app.route('GET', 'account/');
  expect(account.status).toBe(200);
  expect(account.body).toMatchObject({ id: first.accountId, name: 'First', balance: 1250, auto_recharge: false });
  expect(account.body.credits_per_day).toHaveLength(30);

  const created = await first.app.route('POST', 'api-keys/');
  expect(created.status).toBe(201);
  expect(created.body.key).toMatch(/^pk_/);
  expect(created.body.prefix).toBe(created.body.key.slice(0, 10));
  const listed = await first.app.route('GET', 'api-keys/');
  expect(listed.body.results.map((k: { id: string }) => k.id).sort()).toEqual([first.keyId, created.body.id].sort());
  expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

  const theirs = await second.app.route('GET', 'api-keys/');
  expect(theirs.body.results.map((k: { id: string }) => k.id)).toEqual([second.keyId]);
  expect((await second.app.route('DELETE', `api-keys/${created.body.id}/`)).status).toBe(404);
  expect((await reply(new Client(stack, created.body.key).typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);

  const secret = await first.app.route('POST', 'webhook-secrets/');
  expect(secret.body.secret).toMatch(/^whsec_/);
  expect((await second.app.route('DELETE', `webhook-secrets/${secret.body.id}/`)).status).toBe(404);
  expect((await second.app.route('GET', 'webhook-secrets/')).body.results).toEqual([]);
  expect((await first.app.route('GET', 'webhook-secrets/')).body.results).toEqual([{ id: secret.body.id, created_at: expect.any(String), revoked_at: null }]);

  // A body naming another account changes nothing of it: the PATCH takes auto_recharge only.
  expect((await second.app.route('PATCH', 'account/', { auto_recharge: true, id: first.accountId })).status).toBe(400);
  expect((await second.app.route('PATCH', 'account/', { auto_recharge: true })).body).toMatchObject({ id: second.accountId, auto_recharge: true });
  expect((await first.app.route('GET', 'account/')).body.auto_recharge).toBe(false);
}, 60_000);

test('revoking a key in the app makes the public API refuse it; a rotated secret overlaps until the old one is revoked', async () => {
  const tenant = await newAppTenant(stack, 'rotation@tenant.test');
  const key = (await tenant.app.route('POST', 'api-keys/')).body;
  const withKey = new Client(stack, key.key);
  expect((await reply(withKey.typed.GET('/api/public/v1/email/accounts/'))).status).toBe(200);
  expect((await tenant.app.route('DELETE', `api-keys/${key.id}/`)).status).toBe(204);
  const refused = await reply(withKey.typed.GET('/api/public/v1/email/accounts/'));
  expect([refused.status, refused.body]).toEqual([403, { message: 'Forbidden' }]);
  const listed = (await tenant.app.route('GET', 'api-keys/')).body.results.find((k: { id: string }) => k.id === key.id);
  expect(listed.revoked_at).toEqual(expect.any(String));

  const old = (await tenant.app.route('POST', 'webhook-secrets/')).body;
  const next = (await tenant.app.route('POST', 'webhook-secrets/')).body;
  const active = async () => (await tenant.app.route('GET', 'webhook-secrets/')).body.results.filter((s: { revoked_at: string | null }) => !s.revoked_at).map((s: { id: string }) => s.id).sort();
  expect(await active()).toEqual([old.id, next.id].sort());
  expect((await tenant.app.route('DELETE', `webhook-secrets/${old.id}/`)).status).toBe(204);
  expect(await active()).toEqual([next.id]);
}, 60_000);

test('the ledger filters by operation, status and date, and pages with a cursor', async () => {
  const tenant = await newAppTenant(stack, 'ledger@tenant.test', {}, { sender: { email: 'rep@ledger.test', type: 'google' } });
  const email = (i: number) => ({ to: { email: `lead${i}@prospect.test`, first_name: 'Lee', company_name: 'Acme' }, instructions: 'Introduce our warehouse robots and ask for a short call.' });
  expect((await reply(tenant.client.typed.POST('/api/public/v1/emails/', { body: email(1) }))).status).toBe(202);
  // Calls rejected as invalid leave released audit records at once.
  // Deliberately invalid bodies: outside the published document, hence the untyped call.
  for (let i = 0; i < 3; i++) expect((await tenant.client.api('POST', 'emails/', { to: { email: `not-an-email-${i}` } })).status).toBe(400);
  expect(await stack.settle()).toBe(true);

  const all = await tenant.app.route('GET', 'charges/');
  expect(all.body.results).toHaveLength(4);
  const charged = await tenant.app.route('GET', 'charges/?operation=outreach_email&status=charged');
  expect(charged.body.results.map((c: { charged: number }) => c.charged)).toEqual([2]);
  expect((await tenant.app.route('GET', 'charges/?status=released')).body.results).toHaveLength(3);
  const page1 = await tenant.app.route('GET', 'charges/?limit=2');
  const page2 = await tenant.app.route('GET', `charges/?limit=2&cursor=${page1.body.next_cursor}`);
  expect([...page1.body.results, ...page2.body.results].map((c: { id: string }) => c.id)).toEqual(all.body.results.map((c: { id: string }) => c.id));
  const today = new Date().toISOString().slice(0, 10);
  expect((await tenant.app.route('GET', `charges/?from=${today}&to=${today}`)).body.results).toHaveLength(4);
  expect((await tenant.app.route('GET', 'charges/?to=2020-01-01')).body.results).toEqual([]);
  expect((await tenant.app.route('GET', 'charges/?status=bogus')).status).toBe(400);
  const overview = (await tenant.app.route('GET', 'account/')).body;
  expect(overview.credits_per_day.at(-1)).toEqual({ day: today, credits: 2 });
  expect(overview.balance).toBe(1250 - 2);
  expect(overview.recent_charges).toHaveLength(4);
}, 60_000);

test('the charge lists take the ledger\'s operation names: each matches its own charges, and an unknown name is 400 in the app and the console', async () => {
  const tenant = await newAppTenant(stack, 'operations@tenant.test');
  expect((await reply(tenant.client.typed.POST('/api/public/v1/enrich/email/', { body: { first_name: 'Nobody', last_name: 'Known', domain: 'nowhere.test' } }))).status).toBe(404);
  expect((await reply(tenant.client.typed.POST('/api/public/v1/enrich/professional-url/', { body: { email: 'nobody@nowhere.test' } }))).status).toBe(404);
  const ops = async (op: string) => (await tenant.app.route('GET', `charges/?operation=${op}`)).body.results.map((c: { operation: string; charged: number }) => [c.operation, c.charged]);
  expect(await ops('email_enrich')).toEqual([['email_enrich', 5]]);
  expect(await ops('professional_url_enrich')).toEqual([['professional_url_enrich', 3]]);
  // The names the credits page used to send, which matched nothing, and any other: 400 with the field named.
  for (const op of ['email', 'professional_url', 'professional_profile', 'bogus']) {
    const app = await tenant.app.route('GET', `charges/?operation=${op}`);
    expect([op, app.status, app.body.error.code, app.body.error.details[0].path]).toEqual([op, 400, 'invalid_request', 'operation']);
    const console = await tenant.admin.console('GET', `accounts/${tenant.accountId}/charges/?operation=${op}`);
    expect([op, console.status]).toEqual([op, 400]);
  }
  expect((await tenant.admin.console('GET', `accounts/${tenant.accountId}/charges/?operation=email_enrich`)).body.results).toHaveLength(1);
}, 60_000);

test('sending accounts: listed for their owner, paused and limited with the console\'s rules, another account\'s is 404', async () => {
  const sender = { email: 'rep@owner.test', type: 'google' };
  const owner = await newAppTenant(stack, 'sender.owner@tenant.test', {}, { sender });
  const other = await newAppTenant(stack, 'sender.other@tenant.test');
  const [ea] = (await owner.app.route('GET', 'sending-accounts/')).body.results;
  expect(ea).toMatchObject({ email: 'rep@owner.test', sending_enabled: true, daily_limit: 20, configured_daily_limit: 50, health: 'warming_up', signature_html: '' });
  expect((await other.app.route('GET', 'sending-accounts/')).body.results).toEqual([]);
  expect((await other.app.route('PATCH', `sending-accounts/${ea.id}/`, { sending_enabled: false })).status).toBe(404);
  const patched = await owner.app.route('PATCH', `sending-accounts/${ea.id}/`, { sending_enabled: false, daily_limit: 20, signature_html: '<p>Rep<script>x()</script></p>' });
  expect(patched.body).toMatchObject({ sending_enabled: false, daily_limit: 20, configured_daily_limit: 20, health: 'healthy', signature_html: '<p>Rep</p>' });
  expect((await owner.app.route('PATCH', `sending-accounts/${ea.id}/`, { daily_limit: -1 })).status).toBe(400);
  expect((await owner.app.route('PATCH', `sending-accounts/${ea.id}/`, { health: 'healthy' })).status).toBe(400);
}, 60_000);

test('the console adds users to an account only: unknown account 404, weak password 400, taken email 409', async () => {
  const tenant = await newAppTenant(stack, 'taken@tenant.test');
  expect((await tenant.admin.console('POST', 'accounts/acct_01jzzzzzzzzzzzzzzzzzzzzzzz/users/', { email: 'x@tenant.test', password: USER_PASSWORD })).status).toBe(404);
  expect((await tenant.admin.console('POST', `accounts/${tenant.accountId}/users/`, { email: 'weak@tenant.test', password: 'short' })).status).toBe(400);
  expect((await tenant.admin.console('POST', `accounts/${tenant.accountId}/users/`, { email: 'taken@tenant.test', password: USER_PASSWORD })).status).toBe(409);
}, 60_000);

describe('in Chromium', () => {
  const SHOTS = APP_SHOTS;
  let profile: string;
  let context: BrowserContext;
  const blocked: string[] = [];
  const consoleErrors: string[] = [];

  /** A fresh profile whose requests may only reach loopback. */
  async function browserContext(width = 1280): Promise<BrowserContext> {
    return loopbackBrowser(mkdtempSync(join(profile, 'profile-')), { width, blocked, consoleErrors });
  }

  const signIn = (page: Page, email: string) => signInToApp(page, stack.appUrl, email);

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'app-chromium-'));
    mkdirSync(SHOTS, { recursive: true });
    context = await browserContext();
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  test('sign in, create a key and use it, see its charge in the ledger, revoke it and see the API refuse it, create a signing secret', async () => {
    const tenant = await newAppTenant(stack, 'browser@tenant.test', { name: 'Browser Co' }, { sender: { email: 'rep@browser.test', type: 'google' } });
    const page = context.pages()[0] ?? (await context.newPage());
    const answer = await page.goto(stack.appUrl);
    const headers = answer!.headers();
    expect(headers['content-security-policy']).toMatch(/script-src 'self';/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect([headers['x-content-type-options'], headers['referrer-policy']]).toEqual(['nosniff', 'no-referrer']);
    await page.screenshot({ path: join(SHOTS, 'sign-in.png') });
    await signIn(page, 'browser@tenant.test');
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('1,250');
    await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByTestId('shown-once').textContent())!;
    expect(key).toMatch(/^pk_/);
    await page.screenshot({ path: join(SHOTS, 'api-keys.png'), fullPage: true });
    const withKey = new Client(stack, key);
    const draft = { to: { email: 'lead@prospect.test', first_name: 'Lee', company_name: 'Acme' }, instructions: 'Introduce our warehouse robots and ask for a short call.' };
    expect((await reply(withKey.typed.POST('/api/public/v1/emails/', { body: draft }))).status).toBe(202);
    expect(await stack.settle()).toBe(true);

    await page.getByRole('button', { name: 'Done' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Revoke key ${key.slice(0, 10)}` }).click();
    await page.getByText(`Key ${key.slice(0, 10)}… revoked.`).waitFor();
    const refused = await reply(withKey.typed.GET('/api/public/v1/email/accounts/'));
    expect([refused.status, refused.body]).toEqual([403, { message: 'Forbidden' }]);

    await page.getByRole('link', { name: 'Signing secrets' }).click();
    await page.getByRole('button', { name: 'Create signing secret' }).click();
    await expect(page.getByTestId('shown-once').textContent()).resolves.toMatch(/^whsec_/);
    await page.screenshot({ path: join(SHOTS, 'webhook-secrets.png'), fullPage: true });
    expect((await tenant.app.route('GET', 'webhook-secrets/')).body.results).toHaveLength(1);

    await page.getByRole('link', { name: 'Credits' }).click();
    const ledger = page.getByTestId('ledger');
    await ledger.getByRole('cell', { name: 'Outreach email' }).first().waitFor();
    await expect(ledger.getByRole('row').filter({ hasText: 'Outreach email' }).filter({ hasText: 'charged' }).count()).resolves.toBe(1);
    await page.getByLabel('Status').selectOption('released');
    await page.getByRole('button', { name: 'Apply' }).click();
    await ledger.getByText('No charges match.').waitFor();
    await page.getByRole('switch', { name: 'Auto-recharge' }).click();
    await page.getByText('Auto-recharge turned on.').waitFor();
    await page.screenshot({ path: join(SHOTS, 'credits.png'), fullPage: true });
    expect((await tenant.app.route('GET', 'account/')).body.auto_recharge).toBe(true);

    await page.getByRole('link', { name: 'Sending accounts' }).click();
    await page.getByRole('button', { name: 'Pause sending' }).click();
    await page.getByText('rep@browser.test paused.').waitFor();
    await page.screenshot({ path: join(SHOTS, 'sending-accounts.png'), fullPage: true });
    expect((await tenant.app.route('GET', 'sending-accounts/')).body.results[0].sending_enabled).toBe(false);

    expect(consoleErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, 90_000);

  test('Connect Google, then Connect Microsoft: the provider\'s consent, back on the sending-accounts page with each mailbox listed; the browser carries only its cookie', async () => {
    const tenant = await newAppTenant(stack, 'connect@tenant.test', { name: 'Connect Co' });
    const own = await browserContext();
    try {
      const page = own.pages()[0] ?? (await own.newPage());
      const callbacks: Record<string, string>[] = [];
      page.on('request', (r) => void (new URL(r.url()).pathname === '/oauth/callback/' && r.allHeaders().then((h) => callbacks.push(h))));
      await signIn(page, 'connect@tenant.test');
      await page.getByRole('link', { name: 'Sending accounts' }).click();
      await page.getByText('No sending account is connected yet.').waitFor();

      await page.getByRole('button', { name: 'Connect Google' }).click();
      // The emulated Google consents at once (a 302 to the callback), which sends the browser back here.
      await page.getByRole('status').filter({ hasText: 'Connected user@google.emulator.test.' }).waitFor();
      const card = page.locator('article[data-sending-account]');
      await expect(card.count()).resolves.toBe(1);
      await expect(card.first().textContent()).resolves.toMatch(/user@google\.emulator\.test\s*google.*Health: warming_up · Connected.*sent today 0 of 20/s);
      // The outcome left the address bar: a reload shows no message again.
      expect(page.url()).toBe(`${stack.appUrl}#/sending-accounts`);
      await expect(own.cookies()).resolves.toEqual([]);

      await page.getByRole('button', { name: 'Connect Microsoft' }).click();
      await page.getByRole('status').filter({ hasText: 'Connected user@microsoft.emulator.test.' }).waitFor();
      await expect(card.count()).resolves.toBe(2);
      await page.screenshot({ path: join(SHOTS, 'sending-accounts-connected.png'), fullPage: true });

      const listed = (await tenant.app.route('GET', 'sending-accounts/')).body.results;
      expect(listed.map((a: { type: string; connected: boolean }) => [a.type, a.connected]).sort()).toEqual([['google', true], ['microsoft', true]]);
      // Each callback request carried the binding cookie and no credential of any kind.
      expect(callbacks).toHaveLength(2);
      for (const headers of callbacks) {
        expect(headers.cookie).toMatch(/^oauth_binding=[A-Za-z0-9_-]{43}$/);
        expect([headers['x-admin-token'], headers['x-api-key'], headers.authorization]).toEqual([undefined, undefined, undefined]);
      }
    } finally {
      await own.close();
    }
    expect(consoleErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, 90_000);

  test('a second user sees only their own account; the app works at 375 px and from the keyboard', async () => {
    await newAppTenant(stack, 'narrow@tenant.test', { name: 'Narrow Ltd' });
    const narrow = await browserContext(375);
    try {
      const page = narrow.pages()[0] ?? (await narrow.newPage());
      await signIn(page, 'narrow@tenant.test');
      await expect(page.getByRole('heading', { name: /^Overview/ }).textContent()).resolves.toContain('Narrow Ltd');
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.locator('tr[data-key-id]').first().waitFor();
      await expect(page.locator('tr[data-key-id]').count()).resolves.toBe(1);
      await expect(page.getByText('browser@tenant.test').count()).resolves.toBe(0);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      await page.screenshot({ path: join(SHOTS, 'api-keys-375px.png'), fullPage: true });
      // Keyboard only: a link opens its page and moves focus to its content; Tab reaches the control, Space works it.
      await page.getByRole('link', { name: 'Credits' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('switch', { name: 'Auto-recharge' }).waitFor();
      await page.keyboard.press('Tab');
      await expect(page.evaluate("document.activeElement?.getAttribute('role')")).resolves.toBe('switch');
      await page.keyboard.press('Space');
      await page.getByText('Auto-recharge turned on.').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    } finally {
      await narrow.close();
    }
    expect(blocked).toEqual([]);
  }, 60_000);
});
