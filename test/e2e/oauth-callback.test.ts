import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { Client, ROOT, reply, startTestStack } from '../support/local.js';
import { AppClient, newAppTenant } from '../support/app-users.js';
import { arrive, consent, startFromApp, startFromConsole, type Landing } from '../support/oauth-consent.js';

/** A Set-Cookie value's name=value first, then its attributes in any order (sorted). */
const setCookieParts = (setCookie: string) => {
  const [pair, ...attributes] = setCookie.split('; ');
  return [pair, ...attributes.sort()];
};

/**
 * Connecting a mailbox over HTTP, as a browser does it (docs/decisions.md#connecting-a-mailbox): the web app's
 * start (a Cognito token, a strict body), the emulated provider's consent, and the public callback, which
 * takes no credential at all, only the state and the binding cookie the start set. Decided and asserted here:
 * a callback that names a known state spends it whatever its cookie, so a state is tried once.
 */
let stack: LocalStack;
let admin: Client;
const dir = mkdtempSync(join(tmpdir(), 'oauth-callback-'));
beforeAll(async () => {
  stack = await startTestStack({ userPool: true, throttleMultiplier: 100 });
  admin = new Client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const user = () => `owner${++seq}.${Date.now()}@connect.test`;
const callbackUrl = () => `http://localhost:${stack.port}/oauth/callback/`;
const appPage = () => `http://localhost:${stack.port}/app/#/sending-accounts`;
/** The landing without its query: the page the browser is sent to. */
const page = (l: Landing) => `${l.location!.origin}${l.location!.pathname}${l.location!.hash}`;
const outcome = (l: Landing) => ({ status: l.status, page: page(l), sending_account: l.location!.searchParams.get('sending_account'), error: l.location!.searchParams.get('error') });
const mailboxesOf = async (app: AppClient) => (await app.route('GET', 'sending-accounts/')).body.results as { id: string; email: string; type: string; connected: boolean; health: string }[];

test('the app route needs a Cognito token, takes exactly {type}, and answers {authorization_url} with the binding cookie', async () => {
  const t = await newAppTenant(stack, user());
  expect(await startFromApp(stack, null, { type: 'google' })).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
  expect(await startFromApp(stack, 'not-a-jwt', { type: 'google' })).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
  for (const body of [{ type: 'google', return_url: 'https://evil.example/' }, { type: 'google', email: 'a@b.test' }, { type: 'smtp' }, {}]) {
    const refused = await startFromApp(stack, t.token, body);
    expect([body, refused.status, refused.body.error?.code, refused.setCookies]).toEqual([body, 400, 'invalid_request', []]);
  }
  const started = await startFromApp(stack, t.token, { type: 'google' });
  expect(started.status).toBe(201);
  expect(Object.keys(started.body)).toEqual(['authorization_url']);
  expect(new URL(started.body.authorization_url).searchParams.get('redirect_uri')).toBe(callbackUrl());
  expect(started.setCookies).toHaveLength(1);
  const [pair, ...attributes] = started.setCookies[0]!.split('; ');
  expect(pair).toMatch(/^oauth_binding=[A-Za-z0-9_-]{43}$/);
  // Plain-http loopback: no Secure (a browser would drop the cookie); Secure wherever the callback is https.
  expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=600', 'Path=/oauth/callback/', 'SameSite=Lax']);
});

describe.each(['google', 'microsoft'] as const)('%s from the web app', (type) => {
  test('start, consent, callback with the cookie: back on the app page with the new account, which is the user\'s and connected; the cookie is cleared', async () => {
    const t = await newAppTenant(stack, user());
    const other = await newAppTenant(stack, user());
    const started = await startFromApp(stack, t.token, { type });
    const callback = await consent(started.body.authorization_url);
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUrl());
    // The browser's request carries the cookie and nothing else: no admin token, no API key, no bearer token.
    const landing = await arrive(callback, started.cookie);
    expect(outcome(landing)).toEqual({ status: 302, page: appPage(), sending_account: expect.stringMatching(/^ea_/), error: null });
    expect(landing.setCookies.map(setCookieParts)).toEqual([['oauth_binding=', 'HttpOnly', 'Max-Age=0', 'Path=/oauth/callback/', 'SameSite=Lax']]);
    expect(await mailboxesOf(t.app)).toEqual([expect.objectContaining({ id: landing.location!.searchParams.get('sending_account'), type, email: `user@${type}.emulator.test`, connected: true, health: 'warming_up', daily_limit: 20 })]);
    expect(await mailboxesOf(other.app)).toEqual([]);
    // The public API sees the same account: sending from it is possible.
    expect((await reply(t.client.typed.GET('/api/public/v1/email/accounts/'))).body.accounts).toEqual([expect.objectContaining({ type, connected: true, sending_enabled: true })]);
  });
});

test('a valid state without the cookie, or with another browser\'s, connects nothing, lands with error=browser_mismatch, and is spent', async () => {
  const t = await newAppTenant(stack, user());
  const mine = await startFromApp(stack, t.token, { type: 'google' });
  const theirs = await startFromApp(stack, t.token, { type: 'google' });
  const callback = await consent(mine.body.authorization_url);

  const bare = await arrive(callback, null);
  expect(outcome(bare)).toEqual({ status: 302, page: appPage(), sending_account: null, error: 'browser_mismatch' });
  expect(await mailboxesOf(t.app)).toEqual([]);
  // Spent: even the right cookie cannot use that state any more.
  expect(outcome(await arrive(callback, mine.cookie))).toMatchObject({ sending_account: null, error: 'invalid_state' });

  const second = await consent((await startFromApp(stack, t.token, { type: 'microsoft' })).body.authorization_url);
  expect(outcome(await arrive(second, theirs.cookie))).toMatchObject({ sending_account: null, error: 'browser_mismatch' });
  expect(outcome(await arrive(second, 'oauth_binding=forged-value-of-the-right-shape-000000000000000'))).toMatchObject({ error: 'invalid_state' });
  expect(await mailboxesOf(t.app)).toEqual([]);
});

test('a used state fails; a missing, malformed or unknown state lands with error=invalid_state, never an error page', async () => {
  const t = await newAppTenant(stack, user());
  const started = await startFromApp(stack, t.token, { type: 'microsoft' });
  const callback = await consent(started.body.authorization_url);
  expect(outcome(await arrive(callback, started.cookie))).toMatchObject({ status: 302, error: null });
  expect(outcome(await arrive(callback, started.cookie))).toEqual({ status: 302, page: appPage(), sending_account: null, error: 'invalid_state' });
  for (const query of ['', '?code=abc', `?state=${'x'.repeat(500)}&code=abc`, '?state=never-issued&code=abc']) {
    const landing = await arrive(`${callbackUrl()}${query}`, started.cookie);
    expect([query, outcome(landing)]).toEqual([query, { status: 302, page: appPage(), sending_account: null, error: 'invalid_state' }]);
  }
  expect(await mailboxesOf(t.app)).toHaveLength(1);
});

test('an operator\'s start sets the same cookie: with it the callback lands on the return_url with the account; without it, nothing', async () => {
  const t = await newAppTenant(stack, user());
  const back = 'http://127.0.0.1:9/operator/accounts?view=mail';
  const started = await startFromConsole(stack, t.accountId, { type: 'google', email: 'ops.connected@customer.test', return_url: back });
  expect(started.status).toBe(201);
  expect(Object.keys(started.body).sort()).toEqual(['authorization_url', 'expires_at', 'state']);
  expect(setCookieParts(started.setCookies[0]!)).toEqual([expect.stringMatching(/^oauth_binding=[A-Za-z0-9_-]{43}$/), 'HttpOnly', 'Max-Age=600', 'Path=/oauth/callback/', 'SameSite=Lax']);
  const landing = await arrive(await consent(started.body.authorization_url), started.cookie);
  const id = landing.location!.searchParams.get('sending_account');
  expect(landing.location!.toString()).toBe(`${back}&sending_account=${id}`);
  expect(await mailboxesOf(t.app)).toEqual([expect.objectContaining({ id, email: 'ops.connected@customer.test', connected: true })]);

  const elsewhere = await startFromConsole(stack, t.accountId, { type: 'microsoft', return_url: back });
  expect((await arrive(await consent(elsewhere.body.authorization_url), null)).location!.toString()).toBe(`${back}&error=browser_mismatch`);
  expect(await mailboxesOf(t.app)).toHaveLength(1);
});

test('npm start\'s demo account connects its Google sender through the public callback, carrying only the start\'s cookie', async () => {
  const services = await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'd.jsonl'), people: 50, seed: 3 } });
  const demo = await services.createDemoAccount();
  const accounts = (await reply(new Client(stack, demo.api_key).typed.GET('/api/public/v1/email/accounts/'))).body.accounts;
  expect(accounts).toEqual([expect.objectContaining({ email: 'demo.sender@demo-workspace.test', type: 'google', connected: true, health: 'warming_up' })]);
}, 60_000);

// Last: it moves the service clock, which every later test would share.
test('the state expires after ten minutes on the service clock: at 9m50s it still connects, past 10m it lands with error=invalid_state', async () => {
  const t = await newAppTenant(stack, user());
  const early = await startFromApp(stack, t.token, { type: 'google' });
  const late = await startFromApp(stack, t.token, { type: 'microsoft' });
  const earlyCallback = await consent(early.body.authorization_url);
  const lateCallback = await consent(late.body.authorization_url);
  expect((await admin.console('POST', 'dev/clock/', { advance_seconds: 590 })).status).toBe(200);
  expect(outcome(await arrive(earlyCallback, early.cookie))).toMatchObject({ sending_account: expect.stringMatching(/^ea_/), error: null });
  expect((await admin.console('POST', 'dev/clock/', { advance_seconds: 20 })).status).toBe(200);
  expect(outcome(await arrive(lateCallback, late.cookie))).toEqual({ status: 302, page: appPage(), sending_account: null, error: 'invalid_state' });
  expect((await mailboxesOf(t.app)).map((a) => a.type)).toEqual(['google']);
});
