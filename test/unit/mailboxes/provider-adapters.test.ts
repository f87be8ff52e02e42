import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refreshTokens, GrantRevokedError } from '../../../shared/adapters/oauth-client.js';
import { gmailMailbox } from '../../../shared/adapters/gmail-mailbox.js';
import { graphMailbox } from '../../../shared/adapters/graph-mailbox.js';
import { SCOPES, type ProviderSettings } from '../../../shared/adapters/oauth-providers.js';
import { AccessTokenRejectedError } from '../../../shared/ports/mailbox-provider.js';
import { MailRefusedError } from '../../../shared/adapters/mail-refused.js';

/**
 * The provider adapters against recorded exchanges: a loopback server answers each request with the next
 * recorded response after checking that the request is the recorded one (method, path, the query, form or
 * JSON fields the recording names). A request out of order, or one left unasked, fails the test.
 */
interface Exchange {
  request: { method: string; path: string; query?: Record<string, string>; form?: Record<string, string>; json?: Record<string, unknown>; contentType?: string };
  response: { status: number; headers?: Record<string, string>; body?: unknown; text?: string };
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface Replay {
  base: string;
  seen: { path: string; authorization: string | undefined; body: string }[];
  problems: string[];
  remaining(): number;
  close(): Promise<void>;
}

async function replay(fixture: string): Promise<Replay> {
  const exchanges = JSON.parse(readFileSync(join(FIXTURES, `${fixture}.json`), 'utf8')) as Exchange[];
  const seen: Replay['seen'] = [];
  const problems: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', base);
      seen.push({ path: url.pathname, authorization: req.headers.authorization, body });
      const next = exchanges.shift();
      const expect = next?.request;
      const where = `${req.method} ${url.pathname}${url.search}`;
      if (!next || !expect || expect.method !== req.method || decodeURIComponent(url.pathname) !== expect.path) problems.push(`unexpected ${where}`);
      for (const [k, v] of Object.entries(expect?.query ?? {})) if (url.searchParams.get(k) !== v) problems.push(`${where}: query ${k} is ${url.searchParams.get(k)}, recorded ${v}`);
      const form = new URLSearchParams(body);
      for (const [k, v] of Object.entries(expect?.form ?? {})) if (form.get(k) !== v) problems.push(`${where}: form ${k} is ${form.get(k)}, recorded ${v}`);
      if (expect?.json) {
        const json = JSON.parse(body || '{}') as Record<string, unknown>;
        for (const [k, v] of Object.entries(expect.json)) if (json[k] !== v) problems.push(`${where}: json ${k} is ${String(json[k])}, recorded ${String(v)}`);
      }
      if (expect?.contentType && !(req.headers['content-type'] ?? '').startsWith(expect.contentType)) problems.push(`${where}: content-type ${req.headers['content-type']}`);
      if (!next) return void res.writeHead(500).end();
      const r = next.response;
      const text = r.text ?? (r.body === undefined ? '' : JSON.stringify(r.body).replaceAll('{base}', base));
      res.writeHead(r.status, { 'content-type': r.body === undefined ? 'text/plain' : 'application/json', ...(r.headers ?? {}) }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    seen,
    problems,
    remaining: () => exchanges.length,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const settings = (kind: 'google' | 'microsoft', base: string): ProviderSettings => ({
  kind,
  clientId: `${kind}-client`,
  clientSecret: 'shh',
  issuer: kind === 'google' ? 'https://accounts.google.com' : 'https://login.microsoftonline.com/common/v2.0',
  authorizationEndpoint: `${base}/authorize`,
  tokenEndpoint: `${base}/token`,
  apiBase: base,
  scopes: SCOPES[kind],
});

let server: Replay | undefined;
beforeAll(() => {
  // Plain HTTP to a loopback token endpoint is allowed only in local mode, as on the twin.
  process.env.SERVICE_MODE = 'local';
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('token endpoint', () => {
  test('a refresh keeps the refresh token Google did not rotate and computes the expiry from expires_in', async () => {
    server = await replay('google-token-refresh');
    const before = Date.now();
    const tokens = await refreshTokens(settings('google', server.base), '1//refresh-google');
    expect(tokens).toEqual({ accessToken: 'ya29.fresh', refreshToken: '1//refresh-google', expiresAtMs: expect.any(Number) });
    expect(tokens.expiresAtMs).toBeGreaterThanOrEqual(before + 3599_000);
    expect(tokens.expiresAtMs).toBeLessThan(before + 3600_000 + 5000);
    expect(server.problems).toEqual([]);
    expect(new URLSearchParams(server.seen[0]!.body).get('client_secret')).toBe('shh');
  });

  test.each([
    ['google', 'google-token-invalid-grant', 'Token has been expired or revoked.'],
    ['microsoft', 'microsoft-token-invalid-grant', 'AADSTS70008'],
  ] as const)('%s invalid_grant becomes GrantRevokedError with the provider’s reason', async (kind, fixture, reason) => {
    server = await replay(fixture);
    const refused = refreshTokens(settings(kind, server.base), 'revoked');
    await expect(refused).rejects.toBeInstanceOf(GrantRevokedError);
    await expect(refused).rejects.toMatchObject({ reason: expect.stringContaining(reason) });
    expect(server.problems).toEqual([]);
  });
});

describe('Gmail', () => {
  test('send: raw MIME as base64url in the thread, then the Message-ID Gmail kept, read back with format metadata', async () => {
    server = await replay('gmail-send');
    const raw = Buffer.from('From: rep@gmail.test\r\nTo: jane@prospect.test\r\nSubject: hi\r\n\r\nHello', 'utf8');
    const sent = await gmailMailbox(server.base, 'ya29.token').send({ raw, threadId: '18b7f0' });
    expect(sent).toEqual({ providerMessageId: '18c0b2', messageId: '<CAGx1=abc@mail.gmail.com>', threadId: '18b7f0' });
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
    expect(Buffer.from(JSON.parse(server.seen[0]!.body).raw, 'base64url').equals(raw)).toBe(true);
    expect(server.seen.every((s) => s.authorization === 'Bearer ya29.token')).toBe(true);
  });

  test('send: a 4xx answer is a refusal (nothing sent); a 5xx is not (the message may have gone)', async () => {
    const raw = Buffer.from('From: rep@gmail.test\r\nTo: jane@prospect.test\r\nSubject: hi\r\n\r\nHello', 'utf8');
    server = await replay('gmail-send-refused');
    await expect(gmailMailbox(server.base, 'ya29.token').send({ raw })).rejects.toBeInstanceOf(MailRefusedError);
    expect(server.problems).toEqual([]);
    await server.close();
    server = await replay('gmail-send-500');
    const failed = await gmailMailbox(server.base, 'ya29.token').send({ raw }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(MailRefusedError);
    expect(server.problems).toEqual([]);
  });

  test('history 404: a full resync from the inbox, and the cursor restarts at the profile’s historyId', async () => {
    server = await replay('gmail-history-404-resync');
    const batch = await gmailMailbox(server.base, 'ya29.token').listNewMessages('1200');
    expect(batch.resynced).toBe(true);
    expect(batch.cursor).toBe('98765');
    expect(batch.messages.map((m) => [m.id, m.raw.toString('utf8')])).toEqual([['18c0a1', 'From: jane@prospect.test\r\nSubject: Re: hi\r\n\r\nSure!']]);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  test('401 becomes AccessTokenRejectedError (refresh, or disconnect)', async () => {
    server = await replay('gmail-401');
    await expect(gmailMailbox(server.base, 'ya29.old').listNewMessages('1')).rejects.toBeInstanceOf(AccessTokenRejectedError);
  });
});

describe('Microsoft Graph', () => {
  test('send: a draft from MIME (text/plain base64) keeps internetMessageId and conversationId, then it is sent', async () => {
    server = await replay('graph-send');
    const raw = Buffer.from('From: rep@outlook.test\r\nTo: jane@prospect.test\r\nSubject: hi\r\n\r\nHello', 'utf8');
    const sent = await graphMailbox(server.base, 'eyJ0.token').send({ raw });
    expect(sent).toEqual({ providerMessageId: 'AAMkDraft1', messageId: '<PH0PR11MB@namprd11.prod.outlook.com>', threadId: 'AAQkConv1' });
    expect(Buffer.from(server.seen[0]!.body, 'base64').equals(raw)).toBe(true);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  test('send: a 4xx answer to the send step is a refusal (nothing sent)', async () => {
    server = await replay('graph-send-refused');
    const raw = Buffer.from('From: rep@outlook.test\r\nTo: jane@prospect.test\r\nSubject: hi\r\n\r\nHello', 'utf8');
    await expect(graphMailbox(server.base, 'eyJ0.token').send({ raw })).rejects.toBeInstanceOf(MailRefusedError);
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  test('delta 410: a fresh delta (following nextLink, skipping removed items) lists the inbox; its deltaLink is the new cursor', async () => {
    server = await replay('graph-delta-410-resync');
    const stale = `${server.base}/v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=stale`;
    const batch = await graphMailbox(server.base, 'eyJ0.token').listNewMessages(stale);
    expect(batch.resynced).toBe(true);
    expect(batch.cursor).toBe(`${server.base}/v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=fresh`);
    expect(batch.messages.map((m) => m.id)).toEqual(['AAMkAD1']);
    expect(batch.messages[0]!.raw.toString('utf8')).toContain('Sure!');
    expect(server.problems).toEqual([]);
    expect(server.remaining()).toBe(0);
  });

  test('401 becomes AccessTokenRejectedError', async () => {
    server = await replay('graph-401');
    await expect(graphMailbox(server.base, 'eyJ0.old').address()).rejects.toBeInstanceOf(AccessTokenRejectedError);
  });
});
