import type { EmulatedMailbox, EmulatedMessage, EmulatorRoutes, RouteResult } from './mailbox-emulation.js';
import { headerOf, withoutBcc } from './mailbox-emulation.js';

/**
 * The Gmail API subset the service uses (users.getProfile, messages.send, messages.get with `raw` or
 * `metadata`, messages.list, history.list with `messageAdded`), under `/gmail/v1/users/me/` (the Gmail client builds absolute paths from its rootUrl's origin).
 * Errors have Gmail's shape: 401 UNAUTHENTICATED for a bad token, 404 NOT_FOUND for history too old.
 */
const PREFIX = '/gmail/v1/users/me/';
const PAGE = 100;

const gmailError = (code: number, status: string, message: string): RouteResult => ({ status: code, body: { error: { code, message, status, errors: [{ message, reason: status.toLowerCase() }] } } });

function metadata(m: EmulatedMessage, names: string[]) {
  const wanted = names.map((n) => n.toLowerCase());
  const headers = ['Message-ID', 'From', 'To', 'Subject', 'In-Reply-To', 'References']
    .filter((n) => wanted.length === 0 || wanted.includes(n.toLowerCase()))
    .map((name) => ({ name, value: name === 'Message-ID' ? m.internetMessageId : (headerOf(m.raw, name) ?? '') }))
    .filter((h) => h.value !== '');
  return { id: m.id, threadId: m.threadId, labelIds: m.labelIds, historyId: String(m.historyId), payload: { headers } };
}

function pageOf<T>(items: T[], url: URL, max = PAGE): { page: T[]; next?: string } {
  const start = Number(url.searchParams.get('pageToken') ?? 0);
  const size = Math.min(Number(url.searchParams.get('maxResults') ?? max), max);
  const page = items.slice(start, start + size);
  return start + size < items.length ? { page, next: String(start + size) } : { page };
}

function history(box: EmulatedMailbox, url: URL): RouteResult {
  const start = Number(url.searchParams.get('startHistoryId'));
  if (!Number.isFinite(start) || start <= 0) return gmailError(400, 'INVALID_ARGUMENT', 'Invalid startHistoryId');
  if (start < box.historyFloor) return gmailError(404, 'NOT_FOUND', 'Requested entity was not found.');
  const added = box.messages.filter((m) => m.historyId > start && !m.isDraft);
  const { page, next } = pageOf(added, url);
  return {
    status: 200,
    body: {
      ...(page.length ? { history: page.map((m) => ({ id: String(m.historyId), messages: [{ id: m.id, threadId: m.threadId }], messagesAdded: [{ message: { id: m.id, threadId: m.threadId, labelIds: m.labelIds } }] })) } : {}),
      historyId: String(box.historyId),
      ...(next ? { nextPageToken: next } : {}),
    },
  };
}

export const gmailRoutes: EmulatorRoutes = (ctx, req, url, body) => {
  if (!url.pathname.startsWith(PREFIX)) return null;
  const box = ctx.authorise(req, 'google');
  if (!box) return gmailError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
  const path = url.pathname.slice(PREFIX.length);
  if (req.method === 'GET' && path === 'profile') {
    return { status: 200, body: { emailAddress: box.email, messagesTotal: box.messages.length, threadsTotal: new Set(box.messages.map((m) => m.threadId)).size, historyId: String(box.historyId) } };
  }
  if (req.method === 'GET' && path === 'history') return history(box, url);
  if (req.method === 'GET' && path === 'messages') {
    const label = url.searchParams.get('labelIds');
    const listed = box.messages.filter((m) => !m.isDraft && (!label || m.labelIds.includes(label))).reverse();
    const { page, next } = pageOf(listed, url);
    return { status: 200, body: { messages: page.map((m) => ({ id: m.id, threadId: m.threadId })), resultSizeEstimate: listed.length, ...(next ? { nextPageToken: next } : {}) } };
  }
  if (req.method === 'POST' && path === 'messages/send') {
    const input = JSON.parse(body.toString('utf8') || '{}') as { raw?: string; threadId?: string };
    if (!input.raw) return gmailError(400, 'INVALID_ARGUMENT', "'raw' RFC822 payload message string or uploading message via /upload/* URL required");
    const raw = Buffer.from(input.raw, 'base64url').toString('utf8');
    const from = headerOf(raw, 'From') ?? box.email;
    if (!from.toLowerCase().includes(box.email)) return gmailError(403, 'PERMISSION_DENIED', 'Mail service not enabled for this From address');
    if (input.threadId && !box.messages.some((m) => m.threadId === input.threadId)) return gmailError(404, 'NOT_FOUND', 'Requested entity was not found.');
    // Gmail keeps the Bcc header's recipients for delivery and drops the header from what it stores.
    const { raw: stored, bcc } = withoutBcc(raw);
    const m = ctx.addMessage(box, stored, ['SENT']);
    if (input.threadId) m.threadId = input.threadId;
    ctx.persist();
    ctx.onSent({ raw: Buffer.from(stored, 'utf8'), bcc, from: box.email, provider: 'google', providerMessageId: m.id });
    return { status: 200, body: { id: m.id, threadId: m.threadId, labelIds: m.labelIds } };
  }
  const one = /^messages\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && one) {
    const m = box.messages.find((x) => x.id === one[1]);
    if (!m) return gmailError(404, 'NOT_FOUND', 'Requested entity was not found.');
    const format = url.searchParams.get('format') ?? 'full';
    if (format === 'raw') return { status: 200, body: { id: m.id, threadId: m.threadId, labelIds: m.labelIds, historyId: String(m.historyId), raw: Buffer.from(m.raw, 'utf8').toString('base64url') } };
    return { status: 200, body: metadata(m, url.searchParams.getAll('metadataHeaders')) };
  }
  return gmailError(404, 'NOT_FOUND', 'Requested entity was not found.');
};
