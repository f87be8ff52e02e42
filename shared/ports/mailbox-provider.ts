/**
 * The MailboxProvider port: what the service does with a connected mailbox, whichever provider holds it.
 * The Gmail and Graph adapters (shared/adapters/gmail-mailbox.ts, graph-mailbox.ts) implement it with an
 * access token; the connection use cases (tokens, refresh, disconnection) sit on top of it.
 */
export interface ProviderMessage {
  /** The provider's id of the message (Gmail message id, Graph message id): the unit of idempotency. */
  id: string;
  raw: Buffer;
}

export interface SentMessage {
  providerMessageId: string;
  /** The Message-ID header as the recipient sees it, whatever the provider made of ours. */
  messageId: string | null;
  /** Gmail threadId / Graph conversationId: where a follow-up continues. */
  threadId: string | null;
}

export interface NewMessages {
  messages: ProviderMessage[];
  cursor: string;
  /** The old cursor was no longer valid (Gmail 404, Graph 410): the messages are a full resync's. */
  resynced: boolean;
}

export interface MailboxApi {
  /** The address the token belongs to. */
  address(): Promise<string>;
  /** A cursor at "now": later messages will be listed from it. */
  startCursor(): Promise<string>;
  send(mail: { raw: Buffer; threadId?: string | null }): Promise<SentMessage>;
  listNewMessages(cursor: string): Promise<NewMessages>;
}

export type MailboxApiFactory = (kind: 'google' | 'microsoft', apiBase: string, accessToken: string) => MailboxApi;

/** The provider refused the access token (401): refresh it, and if refreshing is refused too, disconnect. */
export class AccessTokenRejectedError extends Error {
  constructor(provider: string) {
    super(`${provider} rejected the access token`);
    this.name = 'AccessTokenRejectedError';
  }
}

/** Messages a provider lists per poll at most; the rest waits for the next poll from the advanced cursor. */
export const MAX_MESSAGES_PER_POLL = 200;
