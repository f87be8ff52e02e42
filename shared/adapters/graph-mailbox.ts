import type { Client, Context, Middleware } from '@microsoft/microsoft-graph-client';
import { once } from '../core/once.js';
import { MailRefusedError } from './mail-refused.js';
import { AccessTokenRejectedError, MAX_MESSAGES_PER_POLL, type MailboxApi, type ProviderMessage } from '../ports/mailbox-provider.js';

/**
 * Microsoft Graph behind the MailboxProvider port (`@microsoft/microsoft-graph-client`; `baseUrl` is the
 * API base, so the twin's emulator answers the same calls). `POST /me/sendMail` returns nothing, so a send
 * creates a draft from the MIME (`POST /me/messages`, `text/plain` base64), which returns its
 * `internetMessageId` and `conversationId`, then sends it (`POST /me/messages/{id}/send`). New messages:
 * the inbox delta query; the cursor is the `@odata.deltaLink`. A 410 means the sync state is gone: a fresh
 * delta lists the inbox again (processing is idempotent per message id) and yields a new deltaLink.
 * A follow-up (a `threadId`, the conversationId of the step it follows) is drafted with `createReply` on the
 * latest message of that conversation, which accepts the same MIME and keeps the draft in the conversation
 * whatever Outlook makes of our In-Reply-To/References; with nothing left in the conversation to answer,
 * the draft is created as a new message, and those headers alone thread it.
 */
interface DraftCreated {
  id: string;
  internetMessageId?: string;
  conversationId?: string;
}

interface ConversationPage {
  value?: { id: string; isDraft?: boolean; receivedDateTime?: string }[];
}

/** OData string literal: a single quote is doubled. */
const odataString = (value: string) => `'${value.replaceAll("'", "''")}'`;

interface DeltaPage {
  value?: { id: string; '@removed'?: unknown }[];
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
}

const DELTA = '/me/mailFolders/inbox/messages/delta';

/**
 * Puts the bearer token on every request. The client's own authentication middleware adds it only for
 * https Graph hosts and strips it elsewhere, which would leave the twin's loopback emulator unauthorised.
 */
class BearerToken implements Middleware {
  private next: Middleware | undefined;
  constructor(private readonly token: string) {}
  async execute(context: Context): Promise<void> {
    const headers = { ...((context.options?.headers as Record<string, string> | undefined) ?? {}), Authorization: `Bearer ${this.token}` };
    context.options = { ...(context.options ?? {}), headers };
    await this.next!.execute(context);
  }
  setNext(next: Middleware): void {
    this.next = next;
  }
}

// The Graph client loads with a mailbox's first call, not at init: most invocations of the functions that
// import this never reach a Microsoft mailbox (a lazy package in Lambda, docs/benchmarks.md "Cold starts").
const loadGraph = /* @__PURE__ */ once(() => import('@microsoft/microsoft-graph-client'));

/** A Graph error of that HTTP status (the client's module is loaded once a request has failed). */
const graphStatus = async (e: unknown, status: number) => e instanceof (await loadGraph()).GraphError && e.statusCode === status;

export function graphMailbox(baseUrl: string, accessToken: string): MailboxApi {
  const connect = once(
    (): Promise<Client> =>
      loadGraph().then(({ Client, HTTPMessageHandler }) => {
        const bearer = new BearerToken(accessToken);
        bearer.setNext(new HTTPMessageHandler());
        return Client.initWithMiddleware({ middleware: bearer, baseUrl: baseUrl.replace(/\/$/, ''), defaultVersion: 'v1.0' });
      }),
  );
  // Next and delta links are absolute; the client recognises only https Graph URLs as such, so a link on
  // this API's own base (the twin's http emulator) is passed as the path it names.
  const root = `${baseUrl.replace(/\/$/, '')}/v1.0`;
  const api = async (path: string) => (await connect()).api(path.startsWith(root) ? path.slice(root.length) : path);
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      if (await graphStatus(e, 401)) throw new AccessTokenRejectedError('Microsoft Graph');
      throw e;
    }
  };

  /** Follows a delta from `start` to its deltaLink; the message ids it listed, up to the per-poll cap. */
  const runDelta = async (start: string, keep: boolean): Promise<{ ids: string[]; deltaLink: string }> => {
    const ids: string[] = [];
    let link = start;
    for (;;) {
      const page = await call(async () => (await api(link)).get() as Promise<DeltaPage>);
      if (keep) for (const m of page.value ?? []) if (!m['@removed'] && !ids.includes(m.id)) ids.push(m.id);
      if (page['@odata.deltaLink']) return { ids, deltaLink: page['@odata.deltaLink'] };
      // A batch at the cap stops at a page boundary: the nextLink resumes there, as a deltaLink would.
      if (ids.length >= MAX_MESSAGES_PER_POLL && page['@odata.nextLink']) return { ids, deltaLink: page['@odata.nextLink'] };
      if (!page['@odata.nextLink']) throw new Error('Graph delta page without a next or delta link');
      link = page['@odata.nextLink'];
    }
  };

  const fetchRaw = async (id: string): Promise<ProviderMessage> => {
    const { ResponseType } = await loadGraph();
    const text = await call(async () => (await api(`/me/messages/${encodeURIComponent(id)}/$value`)).responseType(ResponseType.TEXT).get() as Promise<string>);
    return { id, raw: Buffer.from(text, 'utf8') };
  };

  /**
   * The newest sent or received message of a conversation. Sorted here: Graph refuses `$orderby` on a
   * property the `$filter` does not name first (InefficientFilter).
   */
  const latestInConversation = async (conversationId: string): Promise<string | null> => {
    const page = await call(
      async () => (await api('/me/messages')).filter(`conversationId eq ${odataString(conversationId)}`).select('id,isDraft,receivedDateTime').top(50).get() as Promise<ConversationPage>,
    );
    const sent = (page.value ?? []).filter((m) => !m.isDraft).sort((a, b) => (b.receivedDateTime ?? '').localeCompare(a.receivedDateTime ?? ''));
    return sent[0]?.id ?? null;
  };

  return {
    async address() {
      const me = await call(async () => (await api('/me')).get() as Promise<{ mail?: string | null; userPrincipalName?: string }>);
      return String(me.mail ?? me.userPrincipalName ?? '').toLowerCase();
    },
    async startCursor() {
      return (await runDelta(DELTA, false)).deltaLink;
    },
    async send({ raw, threadId }) {
      const answering = threadId ? await latestInConversation(threadId) : null;
      const path = answering ? `/me/messages/${encodeURIComponent(answering)}/createReply` : '/me/messages';
      // A 4xx to either step (other than 401, which refreshes the token) is a refusal: nothing was sent.
      const refused = async (e: unknown): Promise<never> => {
        const { GraphError } = await loadGraph();
        if (e instanceof GraphError && e.statusCode >= 400 && e.statusCode < 500) throw new MailRefusedError(`Microsoft Graph refused the message (${e.statusCode})`, { cause: e });
        throw e;
      };
      const draft = await call(async () => (await api(path)).header('Content-Type', 'text/plain').post(raw.toString('base64')) as Promise<DraftCreated>).catch(refused);
      await call(async () => (await api(`/me/messages/${encodeURIComponent(draft.id)}/send`)).post(null)).catch(refused);
      return { providerMessageId: draft.id, messageId: draft.internetMessageId ?? null, threadId: draft.conversationId ?? threadId ?? null };
    },
    async listNewMessages(cursor) {
      let resynced = false;
      let delta: { ids: string[]; deltaLink: string };
      try {
        delta = await runDelta(cursor, true);
      } catch (e) {
        if (!(await graphStatus(e, 410))) throw e;
        resynced = true;
        delta = await runDelta(DELTA, true);
      }
      const messages: ProviderMessage[] = [];
      for (const id of delta.ids) messages.push(await fetchRaw(id));
      return { messages, cursor: delta.deltaLink, resynced };
    },
  };
}
