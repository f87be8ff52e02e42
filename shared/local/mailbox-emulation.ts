import type { IncomingMessage } from 'node:http';

/**
 * What the mailbox emulators share (oauth-emulator.ts starts them on one server and composes their routes;
 * gmail-emulator.ts and graph-emulator.ts answer the Gmail API and Microsoft Graph): the emulated mailboxes,
 * the context a route is given, and the MIME helpers both providers need.
 */
export type ProviderKind = 'google' | 'microsoft';

export interface EmulatedMessage {
  id: string;
  threadId: string;
  /** Gmail history id at which the message was added. */
  historyId: number;
  /** Order of arrival in the mailbox (Graph delta tokens count these). */
  seq: number;
  labelIds: string[];
  raw: string;
  internetMessageId: string;
  isDraft: boolean;
  /** Wall-clock ms of arrival, strictly increasing within a mailbox (Graph's receivedDateTime). */
  at?: number;
}

export interface EmulatedMailbox {
  provider: ProviderKind;
  email: string;
  historyId: number;
  /** History older than this is gone: a history.list from before it answers 404, as Gmail does. */
  historyFloor: number;
  /** Bumped to invalidate every Graph delta token (410 Gone, resync). */
  deltaEpoch: number;
  messages: EmulatedMessage[];
}

export interface Grant {
  provider: ProviderKind;
  email: string;
  revoked: boolean;
}

export interface IssuedToken {
  grant: number;
  kind: 'access' | 'refresh';
  expiresAtMs: number;
}

export interface EmulatorState {
  mailboxes: Record<string, EmulatedMailbox>;
  grants: Grant[];
  tokens: Record<string, IssuedToken>;
  nextId: number;
}

export interface SentThroughProvider {
  /** The message as recipients get it: without its Bcc header. */
  raw: Buffer;
  /** Delivered to, from the Bcc header the provider stripped. */
  bcc: string[];
  from: string;
  provider: ProviderKind;
  providerMessageId: string;
}

export interface EmulatorContext {
  state: EmulatorState;
  persist(): void;
  newId(prefix: string): string;
  baseUrl: string;
  /** The mailbox of the bearer token's grant, or null (401). */
  authorise(req: IncomingMessage, provider: ProviderKind): EmulatedMailbox | null;
  onSent(sent: SentThroughProvider): void;
  addMessage(box: EmulatedMailbox, raw: string, labelIds: string[], opts?: { isDraft?: boolean }): EmulatedMessage;
}

export type RouteResult = { status: number; body?: unknown; text?: string; headers?: Record<string, string> } | null;
export type EmulatorRoutes = (ctx: EmulatorContext, req: IncomingMessage, url: URL, body: Buffer) => Promise<RouteResult> | RouteResult;

export function headerOf(raw: string, name: string): string | null {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(unfolded);
  return match?.[1]?.trim() ?? null;
}

/** A Bcc header's recipients, and the message without it, as Gmail and Graph deliver and store it. */
export function withoutBcc(raw: string): { raw: string; bcc: string[] } {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const field = /^Bcc:[ \t]*(.*(?:\r?\n[ \t]+.*)*)\r?\n/im.exec(head);
  if (!field) return { raw, bcc: [] };
  const bcc = (field[1] ?? '').match(/[^\s<>,;"]+@[^\s<>,;"]+/g) ?? [];
  return { raw: raw.slice(0, field.index) + raw.slice(field.index + field[0].length), bcc };
}
