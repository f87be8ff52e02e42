import { sealContext, secretBox } from '../adapters/secret-box.js';
import { providerSettings } from '../adapters/oauth-providers.js';
import { GrantRevokedError, refreshTokens, type TokenSet } from '../adapters/oauth-client.js';
import { providerMailboxApi } from '../adapters/oauth-mailbox-api.js';
import { updateSendingAccount } from '../accounts/sending-accounts.repository.js';
import { logger } from '../core/logger.js';
import { AccessTokenRejectedError, type MailboxApi, type MailboxApiFactory } from '../ports/mailbox-provider.js';
import { markRevoked, storeTokens, type MailboxConnection } from './mailboxes.repository.js';

/**
 * Runs a piece of work against a connected mailbox with a live access token: refreshed when less than
 * five minutes remain (or when the provider rejects it anyway), the new tokens sealed and stored. A refused
 * refresh (`invalid_grant`) disconnects the mailbox: the sending account becomes `connected: false` with
 * `health` saying why, the poller stops visiting it, and the work fails with SenderDisconnectedError.
 */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export class SenderDisconnectedError extends Error {
  constructor(readonly eaId: string, readonly reason: string) {
    super(`sending account ${eaId} is disconnected: ${reason}`);
    this.name = 'SenderDisconnectedError';
  }
}

export interface SessionDeps {
  api?: MailboxApiFactory;
  nowMs?: () => number;
}

/** A mailbox's tokens, sealed for its connection record (`sealContext.mailboxTokens`). */
export async function sealTokens(eaId: string, tokens: TokenSet): Promise<string> {
  return (await secretBox()).seal(JSON.stringify({ access_token: tokens.accessToken, refresh_token: tokens.refreshToken }), sealContext.mailboxTokens(eaId));
}

async function openTokens(eaId: string, sealed: string): Promise<{ access_token: string; refresh_token: string }> {
  return JSON.parse(await (await secretBox()).open(sealed, sealContext.mailboxTokens(eaId))) as { access_token: string; refresh_token: string };
}

export const DISCONNECTED_HEALTH: Record<'google' | 'microsoft', string> = {
  google: 'Google access was revoked or expired: reconnect the mailbox',
  microsoft: 'Microsoft access was revoked or expired: reconnect the mailbox',
};

export async function disconnect(c: MailboxConnection, reason: string): Promise<void> {
  logger.warn('mailbox disconnected', { eaId: c.ea_id, provider: c.provider, reason });
  await markRevoked(c.ea_id, reason);
  await updateSendingAccount(c.ea_id, { connected: false, health: DISCONNECTED_HEALTH[c.provider] });
}

export async function withMailbox<T>(c: MailboxConnection, work: (api: MailboxApi) => Promise<T>, deps: SessionDeps = {}): Promise<T> {
  if (c.status !== 'active') throw new SenderDisconnectedError(c.ea_id, c.revoked_reason ?? 'revoked');
  const settings = await providerSettings(c.provider);
  if (!settings) throw new Error(`no OAuth client is configured for ${c.provider}`);
  const makeApi = deps.api ?? providerMailboxApi;
  const now = deps.nowMs ?? Date.now;
  const stored = await openTokens(c.ea_id, c.tokens_sealed);
  let access = stored.access_token;

  const refresh = async () => {
    try {
      const fresh = await refreshTokens(settings, stored.refresh_token);
      await storeTokens(c.ea_id, await sealTokens(c.ea_id, fresh), fresh.expiresAtMs);
      stored.refresh_token = fresh.refreshToken;
      access = fresh.accessToken;
    } catch (e) {
      if (!(e instanceof GrantRevokedError)) throw e;
      await disconnect(c, e.reason);
      throw new SenderDisconnectedError(c.ea_id, e.reason);
    }
  };

  if (c.access_expires_ms - now() < REFRESH_MARGIN_MS) await refresh();
  try {
    return await work(makeApi(c.provider, settings.apiBase, access));
  } catch (e) {
    if (!(e instanceof AccessTokenRejectedError)) throw e;
    // Revoked or cut short before its expiry: one refresh tells which.
    await refresh();
    return work(makeApi(c.provider, settings.apiBase, access));
  }
}
