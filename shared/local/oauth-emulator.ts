import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { gmailRoutes } from './gmail-emulator.js';
import { graphRoutes } from './graph-emulator.js';
import type { EmulatedMailbox, EmulatedMessage, EmulatorContext, EmulatorRoutes, EmulatorState, ProviderKind, RouteResult, SentThroughProvider } from './mailbox-emulation.js';
import { headerOf } from './mailbox-emulation.js';

export type { EmulatedMailbox, EmulatedMessage, EmulatorContext, EmulatorRoutes, EmulatorState, ProviderKind, RouteResult, SentThroughProvider } from './mailbox-emulation.js';
export { headerOf, withoutBcc } from './mailbox-emulation.js';

/**
 * Stand-ins for Google's and Microsoft's OAuth 2.0 authorize/token endpoints, the Gmail API and Microsoft
 * Graph, on one loopback server: the subset the service uses, speaking the same wire protocol so that
 * openid-client, @googleapis/gmail and @microsoft/microsoft-graph-client reach them through their base-URL
 * settings. Each signed-in address owns one emulated mailbox; what it sends also lands in the dev mailbox.
 *
 *   /google/oauth/authorize, /google/oauth/token, /google/oauth/revoke, /gmail/v1/users/me/…
 *   /microsoft/oauth/authorize, /microsoft/oauth/token, /microsoft/graph/v1.0/me/…
 */
interface PendingCode {
  grant: number;
  clientId: string;
  redirectUri: string;
  challenge: string;
  expiresAtMs: number;
}

export interface ProviderClient {
  client_id: string;
  client_secret: string;
}

export interface MailProviderEmulator {
  baseUrl: string;
  port: number;
  clients: Record<ProviderKind, ProviderClient>;
  /** Put a received message (raw MIME) into the mailbox of `email`; its provider id, or null without one. */
  deliver(email: string, raw: string): string | null;
  mailbox(email: string): EmulatedMailbox | undefined;
  /** The user withdraws consent: every token of the address stops working (`invalid_grant` on refresh). */
  revoke(email: string): void;
  /** Age the tokens of an address so its next call must refresh. */
  expireAccessTokens(email: string): void;
  /** Drop history (Gmail 404) and delta state (Graph 410) so the next poll must resync. */
  forgetSyncState(email: string): void;
  stop(): Promise<void>;
}

const ACCESS_TOKEN_SECONDS = 3600;
const CODE_SECONDS = 300;

const boxKey = (provider: ProviderKind, email: string) => `${provider}:${email.toLowerCase()}`;

function tokenError(provider: ProviderKind, error: string, description: string): RouteResult {
  // Microsoft identity platform prefixes its descriptions with an AADSTS code.
  const body = provider === 'microsoft' ? { error, error_description: `AADSTS70000: ${description}`, error_codes: [70000] } : { error, error_description: description };
  return { status: 400, body };
}

function oauthRoutes(ctx: EmulatorContext, clients: Record<ProviderKind, ProviderClient>, codes: Map<string, PendingCode>): EmulatorRoutes {
  return (_ctx, req, url, body) => {
    const match = /^\/(google|microsoft)\/oauth\/(authorize|token|revoke)$/.exec(url.pathname);
    if (!match) return null;
    const provider = match[1] as ProviderKind;
    const client = clients[provider];
    const action = match[2];
    if (action === 'authorize' && req.method === 'GET') {
      const q = url.searchParams;
      const redirect = q.get('redirect_uri');
      if (q.get('client_id') !== client.client_id || !redirect) return { status: 400, text: 'unknown client or missing redirect_uri' };
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        return { status: 400, text: 'authorization code with PKCE (S256) is required' };
      }
      // Consent is given at once by the address in login_hint (the emulated user who signs in).
      const email = (q.get('login_hint') ?? `user@${provider}.emulator.test`).toLowerCase();
      const key = boxKey(provider, email);
      ctx.state.mailboxes[key] ??= { provider, email, historyId: 1000, historyFloor: 0, deltaEpoch: 1, messages: [] };
      ctx.state.grants.push({ provider, email, revoked: false });
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { grant: ctx.state.grants.length - 1, clientId: client.client_id, redirectUri: redirect, challenge: q.get('code_challenge')!, expiresAtMs: Date.now() + CODE_SECONDS * 1000 });
      ctx.persist();
      const to = new URL(redirect);
      to.searchParams.set('code', code);
      if (q.get('state')) to.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: to.toString() } };
    }
    if (action === 'revoke' && req.method === 'POST') {
      const token = new URLSearchParams(body.toString('utf8')).get('token') ?? url.searchParams.get('token') ?? '';
      const issued = ctx.state.tokens[token];
      if (!issued) return { status: 400, body: { error: 'invalid_token' } };
      ctx.state.grants[issued.grant]!.revoked = true;
      ctx.persist();
      return { status: 200, body: {} };
    }
    if (action !== 'token' || req.method !== 'POST') return { status: 405, text: 'method not allowed' };
    const form = new URLSearchParams(body.toString('utf8'));
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    const [basicId, basicSecret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
    const clientId = form.get('client_id') ?? basicId;
    const secret = form.get('client_secret') ?? basicSecret;
    if (clientId !== client.client_id || secret !== client.client_secret) return { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } };
    const issue = (grant: number, refresh: string | null) => {
      const access = `ya29.${randomBytes(24).toString('base64url')}`;
      ctx.state.tokens[access] = { grant, kind: 'access', expiresAtMs: Date.now() + ACCESS_TOKEN_SECONDS * 1000 };
      let refreshToken = refresh;
      // Microsoft rotates refresh tokens on every use; Google keeps the one it issued.
      if (!refreshToken || provider === 'microsoft') {
        if (refreshToken) delete ctx.state.tokens[refreshToken];
        refreshToken = `1//${randomBytes(24).toString('base64url')}`;
        ctx.state.tokens[refreshToken] = { grant, kind: 'refresh', expiresAtMs: Number.MAX_SAFE_INTEGER };
      }
      ctx.persist();
      const scope = provider === 'google' ? 'https://www.googleapis.com/auth/gmail.send https://www.googleapis.com/auth/gmail.readonly' : 'Mail.Send Mail.ReadWrite offline_access';
      return { status: 200, body: { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken, scope } };
    };
    if (form.get('grant_type') === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!code || code.expiresAtMs < Date.now() || code.clientId !== clientId) return tokenError(provider, 'invalid_grant', 'The authorization code is invalid or has expired.');
      if (code.redirectUri !== form.get('redirect_uri')) return tokenError(provider, 'invalid_grant', 'redirect_uri does not match the authorization request.');
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return tokenError(provider, 'invalid_grant', 'The code_verifier does not match the code_challenge.');
      return issue(code.grant, null);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const refresh = form.get('refresh_token') ?? '';
      const issued = ctx.state.tokens[refresh];
      if (!issued || issued.kind !== 'refresh' || ctx.state.grants[issued.grant]!.revoked) {
        return tokenError(provider, 'invalid_grant', 'Token has been expired or revoked.');
      }
      return issue(issued.grant, refresh);
    }
    return tokenError(provider, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  };
}

export async function startMailProviderEmulator(opts: {
  port: number;
  file: string | null;
  onSent: (sent: SentThroughProvider) => void;
}): Promise<MailProviderEmulator> {
  const state: EmulatorState =
    opts.file && existsSync(opts.file) ? (JSON.parse(readFileSync(opts.file, 'utf8')) as EmulatorState) : { mailboxes: {}, grants: [], tokens: {}, nextId: 1 };
  const clientsFile = opts.file ? `${opts.file}.clients` : null;
  const makeClient = (p: ProviderKind): ProviderClient => ({ client_id: `${p}-local-client`, client_secret: randomBytes(16).toString('base64url') });
  const clients: Record<ProviderKind, ProviderClient> =
    clientsFile && existsSync(clientsFile) ? JSON.parse(readFileSync(clientsFile, 'utf8')) : { google: makeClient('google'), microsoft: makeClient('microsoft') };
  if (clientsFile) writeFileSync(clientsFile, JSON.stringify(clients), { mode: 0o600 });
  const codes = new Map<string, PendingCode>();
  let baseUrl = `http://127.0.0.1:${opts.port}`;

  const ctx: EmulatorContext = {
    state,
    baseUrl,
    persist: () => {
      if (opts.file) writeFileSync(opts.file, JSON.stringify(state));
    },
    newId: (prefix) => `${prefix}${(state.nextId++).toString(16).padStart(12, '0')}${randomBytes(2).toString('hex')}`,
    authorise(req, provider) {
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const issued = bearer ? state.tokens[bearer] : undefined;
      if (!issued || issued.kind !== 'access' || issued.expiresAtMs < Date.now()) return null;
      const grant = state.grants[issued.grant]!;
      if (grant.revoked || grant.provider !== provider) return null;
      return state.mailboxes[boxKey(provider, grant.email)] ?? null;
    },
    onSent: opts.onSent,
    addMessage(box, raw, labelIds, extra = {}) {
      box.historyId += 1;
      const internetMessageId = headerOf(raw, 'Message-ID') ?? `<${randomBytes(12).toString('hex')}@${box.provider === 'google' ? 'mail.gmail.com' : 'outlook.emulator.test'}>`;
      const related: string[] = [headerOf(raw, 'In-Reply-To'), headerOf(raw, 'References')].join(' ').match(/<[^<>\s]+>/g) ?? [];
      const parent = box.messages.find((m) => related.includes(m.internetMessageId));
      const id = ctx.newId(box.provider === 'google' ? '18c' : 'AAMk');
      const message: EmulatedMessage = {
        id,
        threadId: parent?.threadId ?? id,
        historyId: box.historyId,
        seq: box.messages.length + 1,
        labelIds,
        raw,
        internetMessageId,
        isDraft: extra.isDraft ?? false,
        at: Math.max(Date.now(), (box.messages.at(-1)?.at ?? 0) + 1),
      };
      box.messages.push(message);
      ctx.persist();
      return message;
    },
  };

  const routes: EmulatorRoutes[] = [oauthRoutes(ctx, clients, codes), gmailRoutes, graphRoutes];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', baseUrl);
      try {
        let out: RouteResult = null;
        for (const route of routes) {
          out = await route(ctx, req, url, Buffer.concat(chunks));
          if (out) break;
        }
        out ??= { status: 404, body: { error: { code: 404, message: 'Not found' } } };
        const headers: Record<string, string> = { ...(out.headers ?? {}) };
        let payload = '';
        if (out.body !== undefined) {
          headers['content-type'] ??= 'application/json; charset=utf-8';
          payload = JSON.stringify(out.body);
        } else if (out.text !== undefined) {
          headers['content-type'] ??= 'text/plain; charset=utf-8';
          payload = out.text;
        }
        res.writeHead(out.status, headers).end(payload);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 500, message: (e as Error).message } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(opts.port, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  ctx.baseUrl = baseUrl;

  const grantsOf = (email: string) => state.grants.map((g, i) => ({ g, i })).filter(({ g }) => g.email === email.toLowerCase());
  return {
    baseUrl,
    port,
    clients,
    deliver(email, raw) {
      const box = Object.values(state.mailboxes).find((b) => b.email === email.toLowerCase());
      if (!box) return null;
      return ctx.addMessage(box, raw, ['INBOX', 'UNREAD']).id;
    },
    mailbox: (email) => Object.values(state.mailboxes).find((b) => b.email === email.toLowerCase()),
    revoke(email) {
      for (const { g } of grantsOf(email)) g.revoked = true;
      ctx.persist();
    },
    expireAccessTokens(email) {
      const ids = new Set(grantsOf(email).map(({ i }) => i));
      for (const t of Object.values(state.tokens)) if (t.kind === 'access' && ids.has(t.grant)) t.expiresAtMs = 0;
      ctx.persist();
    },
    forgetSyncState(email) {
      for (const box of Object.values(state.mailboxes)) {
        if (box.email !== email.toLowerCase()) continue;
        box.historyId += 1;
        box.historyFloor = box.historyId;
        box.deltaEpoch += 1;
      }
      ctx.persist();
    },
    stop: () => new Promise<void>((r) => {
      server.closeAllConnections?.();
      server.close(() => r());
    }),
  };
}
