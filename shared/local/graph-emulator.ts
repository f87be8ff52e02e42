import type { EmulatedMailbox, EmulatedMessage, EmulatorRoutes, RouteResult } from './mailbox-emulation.js';
import { headerOf, withoutBcc } from './mailbox-emulation.js';

/**
 * The Microsoft Graph subset the service uses, under `/microsoft/graph/v1.0/me`: GET /me, a draft created
 * from MIME (POST /me/messages, `text/plain` base64) then sent (POST /me/messages/{id}/send), the message's
 * MIME (GET /me/messages/{id}/$value) and the inbox delta query with `@odata.nextLink`/`@odata.deltaLink`.
 * A delta token from before a reset answers 410 Gone (`SyncStateNotFound`), as Graph does. Replies in a
 * conversation: the messages of one conversation (GET /me/messages?$filter=conversationId eq '…') and a
 * reply draft from MIME (POST /me/messages/{id}/createReply), which joins the conversation of the message
 * it answers and gets In-Reply-To/References to it when the MIME has none.
 */
const PREFIX = '/microsoft/graph/v1.0/me';
const PAGE = 50;

const graphError = (status: number, code: string, message: string): RouteResult => ({ status, body: { error: { code, message } } });

function view(m: EmulatedMessage) {
  return {
    id: m.id,
    internetMessageId: m.internetMessageId,
    conversationId: m.threadId,
    subject: headerOf(m.raw, 'Subject') ?? '',
    isDraft: m.isDraft,
    receivedDateTime: new Date(m.at ?? 0).toISOString(),
    from: { emailAddress: { address: (headerOf(m.raw, 'From') ?? '').replace(/^.*<|>.*$/g, '') } },
  };
}

function delta(box: EmulatedMailbox, url: URL, base: string): RouteResult {
  const token = url.searchParams.get('$deltatoken');
  const skip = url.searchParams.get('$skiptoken');
  const cursor = token ?? skip;
  let after = 0;
  if (cursor) {
    const [epoch, seq] = cursor.split('.').map(Number);
    if (epoch !== box.deltaEpoch) return graphError(410, 'SyncStateNotFound', 'The sync state generation is not found. Please start a new sync.');
    after = seq ?? 0;
  }
  const inbox = box.messages.filter((m) => m.labelIds.includes('INBOX') && m.seq > after);
  const page = inbox.slice(0, PAGE);
  const link = `${base}${PREFIX}/mailFolders/inbox/messages/delta`;
  const last = page.at(-1)?.seq ?? after;
  const more = inbox.length > PAGE;
  return {
    status: 200,
    body: {
      '@odata.context': `${base}/microsoft/graph/v1.0/$metadata#Collection(message)`,
      value: page.map(view),
      ...(more ? { '@odata.nextLink': `${link}?$skiptoken=${box.deltaEpoch}.${last}` } : { '@odata.deltaLink': `${link}?$deltatoken=${box.deltaEpoch}.${last}` }),
    },
  };
}

export const graphRoutes: EmulatorRoutes = (ctx, req, url, body) => {
  if (url.pathname !== PREFIX && !url.pathname.startsWith(`${PREFIX}/`)) return null;
  const box = ctx.authorise(req, 'microsoft');
  if (!box) return graphError(401, 'InvalidAuthenticationToken', 'Access token has expired or is not yet valid.');
  const path = url.pathname.slice(PREFIX.length);
  if (req.method === 'GET' && path === '') return { status: 200, body: { id: `user-${box.email}`, mail: box.email, userPrincipalName: box.email, displayName: box.email.split('@')[0] } };
  if (req.method === 'GET' && path === '/mailFolders/inbox/messages/delta') return delta(box, url, ctx.baseUrl);
  if (req.method === 'GET' && path === '/messages') {
    const filter = /^conversationId eq '((?:[^']|'')*)'$/.exec(url.searchParams.get('$filter') ?? '');
    if (!filter) return graphError(400, 'ErrorInvalidRequest', "This emulator lists messages by $filter=conversationId eq '…' only.");
    const conversation = filter[1]!.replaceAll("''", "'");
    const top = Math.min(Number(url.searchParams.get('$top') ?? 10), 1000);
    return { status: 200, body: { value: box.messages.filter((m) => m.threadId === conversation).slice(0, top).map(view) } };
  }
  const reply = /^\/messages\/([^/]+)\/createReply$/.exec(path);
  if (req.method === 'POST' && (path === '/messages' || reply)) {
    if (!/^text\/plain/i.test(req.headers['content-type'] ?? '')) return graphError(400, 'ErrorInvalidRequest', 'This emulator creates messages from MIME only (Content-Type: text/plain, base64).');
    const answered = reply ? box.messages.find((x) => x.id === reply[1] && !x.isDraft) : undefined;
    if (reply && !answered) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    let raw = Buffer.from(body.toString('utf8').trim(), 'base64').toString('utf8');
    if (!/\r?\n\r?\n/.test(raw) || !headerOf(raw, 'From')) return graphError(400, 'ErrorMimeContentInvalidBase64String', 'Invalid base64 string for MIME content.');
    if (answered && !headerOf(raw, 'In-Reply-To')) raw = `In-Reply-To: ${answered.internetMessageId}\r\nReferences: ${answered.internetMessageId}\r\n${raw}`;
    const m = ctx.addMessage(box, raw, ['DRAFTS'], { isDraft: true });
    if (answered) m.threadId = answered.threadId;
    ctx.persist();
    return { status: 201, body: view(m) };
  }
  const send = /^\/messages\/([^/]+)\/send$/.exec(path);
  if (req.method === 'POST' && send) {
    const m = box.messages.find((x) => x.id === send[1]);
    if (!m || !m.isDraft) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    const { raw, bcc } = withoutBcc(m.raw);
    m.isDraft = false;
    m.labelIds = ['SENTITEMS'];
    m.raw = raw;
    ctx.persist();
    ctx.onSent({ raw: Buffer.from(raw, 'utf8'), bcc, from: box.email, provider: 'microsoft', providerMessageId: m.id });
    return { status: 202 };
  }
  const value = /^\/messages\/([^/]+)\/\$value$/.exec(path);
  if (req.method === 'GET' && value) {
    const m = box.messages.find((x) => x.id === value[1]);
    if (!m) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    return { status: 200, text: m.raw };
  }
  return graphError(404, 'ResourceNotFound', 'Resource not found for the segment.');
};
