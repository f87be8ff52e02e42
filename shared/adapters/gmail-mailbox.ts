import type { gmail_v1 } from '@googleapis/gmail';
import { once } from '../core/once.js';
import { MailRefusedError } from './mail-refused.js';
import { AccessTokenRejectedError, MAX_MESSAGES_PER_POLL, type MailboxApi, type ProviderMessage } from '../ports/mailbox-provider.js';

/**
 * The Gmail API behind the MailboxProvider port (`@googleapis/gmail`; `rootUrl` is the API base, so the
 * twin's emulator answers the same calls). Sending: `users.messages.send` with the raw MIME as base64url
 * and `threadId` for a follow-up; the Message-ID the recipient sees is read back with `format: metadata`.
 * New messages: `users.history.list` (`messageAdded`) from the stored historyId; a 404 means that history is
 * gone, so the inbox's latest messages are listed instead and the cursor restarts from the profile's
 * historyId. Our own sent messages and drafts are not "new messages".
 */
const statusOf = (e: unknown): number | undefined => {
  const err = e as { status?: number; code?: number | string; response?: { status?: number } };
  return err.response?.status ?? err.status ?? (typeof err.code === 'number' ? err.code : undefined);
};

/** Gmail answered the send with a 4xx (other than 401, which refreshes the token): it took nothing. */
const refusal = (e: unknown): MailRefusedError | null => {
  const status = statusOf(e);
  return status !== undefined && status >= 400 && status < 500 && status !== 401 ? new MailRefusedError(`Gmail refused the message (${status})`, { cause: e }) : null;
};

async function call<T>(run: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await run()).data;
  } catch (e) {
    if (statusOf(e) === 401) throw new AccessTokenRejectedError('Gmail');
    throw e;
  }
}

// The Gmail client (with google-auth-library, ≈ 400 KB) loads with a mailbox's first call, not at init: most
// invocations of the functions that import this never reach a Google mailbox (a lazy package in Lambda).
const loadGmail = /* @__PURE__ */ once(() => import('@googleapis/gmail').then((m) => m.gmail));

export function gmailMailbox(rootUrl: string, accessToken: string): MailboxApi {
  const usersApi = once((): Promise<gmail_v1.Gmail['users']> => loadGmail().then((gmail) => gmail({ version: 'v1', rootUrl: rootUrl.endsWith('/') ? rootUrl : `${rootUrl}/`, retry: false }).users));
  const auth = { headers: { Authorization: `Bearer ${accessToken}` } };

  const fetchRaw = async (id: string): Promise<ProviderMessage> => {
    const m = await call(async () => (await usersApi()).messages.get({ userId: 'me', id, format: 'raw' }, auth));
    return { id, raw: Buffer.from(m.raw ?? '', 'base64url') };
  };

  const resync = async () => {
    const profile = await call(async () => (await usersApi()).getProfile({ userId: 'me' }, auth));
    const listed = await call(async () => (await usersApi()).messages.list({ userId: 'me', labelIds: ['INBOX'], maxResults: MAX_MESSAGES_PER_POLL }, auth));
    const messages: ProviderMessage[] = [];
    for (const m of listed.messages ?? []) if (m.id) messages.push(await fetchRaw(m.id));
    return { messages, cursor: String(profile.historyId), resynced: true };
  };

  return {
    async address() {
      return String((await call(async () => (await usersApi()).getProfile({ userId: 'me' }, auth))).emailAddress ?? '').toLowerCase();
    },
    async startCursor() {
      return String((await call(async () => (await usersApi()).getProfile({ userId: 'me' }, auth))).historyId);
    },
    async send({ raw, threadId }) {
      const sent = await call(async () => (await usersApi()).messages.send({ userId: 'me', requestBody: { raw: raw.toString('base64url'), ...(threadId ? { threadId } : {}) } }, auth)).catch((e: unknown) => {
        throw refusal(e) ?? e;
      });
      const id = sent.id ?? '';
      const meta = await call(async () => (await usersApi()).messages.get({ userId: 'me', id, format: 'metadata', metadataHeaders: ['Message-ID'] }, auth));
      const header = meta.payload?.headers?.find((h) => h.name?.toLowerCase() === 'message-id')?.value ?? null;
      return { providerMessageId: id, messageId: header, threadId: sent.threadId ?? null };
    },
    async listNewMessages(cursor) {
      const ids: string[] = [];
      let pageToken: string | undefined;
      let latest = cursor;
      try {
        do {
          const page = await call(async () => (await usersApi()).history.list({ userId: 'me', startHistoryId: cursor, historyTypes: ['messageAdded'], ...(pageToken ? { pageToken } : {}) }, auth));
          for (const h of page.history ?? []) {
            for (const added of h.messagesAdded ?? []) {
              const m = added.message;
              if (!m?.id || ids.includes(m.id)) continue;
              if ((m.labelIds ?? []).some((l) => l === 'SENT' || l === 'DRAFT')) continue;
              if (ids.length >= MAX_MESSAGES_PER_POLL) break;
              ids.push(m.id);
            }
            // The cursor only moves past history whose messages are in this batch.
            if (ids.length < MAX_MESSAGES_PER_POLL && h.id) latest = h.id;
          }
          if (ids.length >= MAX_MESSAGES_PER_POLL) break;
          if (page.historyId) latest = String(page.historyId);
          pageToken = page.nextPageToken ?? undefined;
        } while (pageToken);
      } catch (e) {
        if (statusOf(e) === 404) return resync();
        throw e;
      }
      const messages: ProviderMessage[] = [];
      for (const id of ids) messages.push(await fetchRaw(id));
      return { messages, cursor: latest, resynced: false };
    },
  };
}
