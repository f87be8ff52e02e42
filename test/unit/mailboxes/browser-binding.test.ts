import fc from 'fast-check';
import { BINDING_COOKIE, bindingMatches, bindingNonceOf, clearedBindingCookie, newBrowserBinding } from '../../../shared/mailboxes/browser-binding.js';
import { callbackLanding } from '../../../shared/mailboxes/connect-mailbox.js';

/** The browser binding of a started mailbox connection: what the cookie says, and what the callback accepts. */
const AWS_CALLBACK = 'https://d111111abcdef8.cloudfront.net/oauth/callback/';
const LOCAL_CALLBACK = 'http://localhost:3000/oauth/callback/';
/** A Set-Cookie value's name=value first, then its attributes in any order (sorted). */
const parts = (setCookie: string) => {
  const [pair, ...attributes] = setCookie.split('; ');
  return [pair, ...attributes.sort()];
};

test('the cookie: HttpOnly, SameSite=Lax, the callback\'s path, ten minutes; Secure on https only; the record keeps a hash, not the nonce', () => {
  const aws = newBrowserBinding(AWS_CALLBACK);
  expect(parts(aws.cookie)).toEqual([`${BINDING_COOKIE}=${aws.nonce}`, 'HttpOnly', 'Max-Age=600', 'Path=/oauth/callback/', 'SameSite=Lax', 'Secure']);
  expect(aws.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(aws.nonceHash).toMatch(/^[0-9a-f]{64}$/);
  expect(aws.nonceHash).not.toContain(aws.nonce);
  expect(parts(newBrowserBinding(LOCAL_CALLBACK).cookie)).not.toContain('Secure');
  // Behind a stage path, the cookie is scoped to that path.
  expect(parts(newBrowserBinding('https://abc.execute-api.eu-west-1.amazonaws.com/prod/oauth/callback/').cookie)).toContain('Path=/prod/oauth/callback/');
  expect(parts(clearedBindingCookie(AWS_CALLBACK))).toEqual([`${BINDING_COOKIE}=`, 'HttpOnly', 'Max-Age=0', 'Path=/oauth/callback/', 'SameSite=Lax', 'Secure']);
  expect(newBrowserBinding(AWS_CALLBACK).nonce).not.toBe(aws.nonce);
});

test('the nonce is found among other cookies and in any of several Cookie headers; an empty value is none', () => {
  expect(bindingNonceOf([])).toBeNull();
  expect(bindingNonceOf(['theme=dark; session=abc'])).toBeNull();
  expect(bindingNonceOf([`theme=dark; ${BINDING_COOKIE}=n0nce; session=abc`])).toBe('n0nce');
  expect(bindingNonceOf(['theme=dark', `${BINDING_COOKIE}=n0nce`])).toBe('n0nce');
  expect(bindingNonceOf([`${BINDING_COOKIE}=`])).toBeNull();
  expect(bindingNonceOf([`x${BINDING_COOKIE}=n0nce`])).toBeNull();
});

test('only the nonce whose hash the record holds matches; nothing matches a missing nonce or a missing or malformed hash', () => {
  const b = newBrowserBinding(AWS_CALLBACK);
  expect(bindingMatches(b.nonce, b.nonceHash)).toBe(true);
  expect(bindingMatches(null, b.nonceHash)).toBe(false);
  expect(bindingMatches(b.nonce, undefined)).toBe(false);
  expect(bindingMatches(b.nonce, '')).toBe(false);
  expect(bindingMatches(b.nonce, b.nonceHash.slice(2))).toBe(false);
  expect(bindingMatches(b.nonceHash, b.nonceHash)).toBe(false);
  fc.assert(fc.property(fc.string({ minLength: 1 }), (other) => other === b.nonce || !bindingMatches(other, b.nonceHash)));
});

test('the landing keeps the page\'s own query and puts the outcome before its #/page fragment', () => {
  expect(callbackLanding('https://app.example/app/#/sending-accounts', { sending_account: 'ea_1' })).toBe('https://app.example/app/?sending_account=ea_1#/sending-accounts');
  expect(callbackLanding('https://ops.example/done?tab=mail', { error: 'access_denied' })).toBe('https://ops.example/done?tab=mail&error=access_denied');
});
