import { authorizationUrl, exchangeCode, newPkceVerifier } from '../../../shared/adapters/oauth-client.js';
import { graphMailbox } from '../../../shared/adapters/graph-mailbox.js';
import { SCOPES, type ProviderSettings } from '../../../shared/adapters/oauth-providers.js';
import type { MailboxApi } from '../../../shared/ports/mailbox-provider.js';
import { startMailProviderEmulator, type MailProviderEmulator, type SentThroughProvider } from '../../../shared/local/oauth-emulator.js';

/**
 * A Graph follow-up through the official client against the emulator: drafted with createReply on the
 * conversation's latest message, it stays in the step it follows' conversation even when its MIME names
 * no earlier message.
 */
const SENDER = 'rep@outlook.test';
let emulator: MailProviderEmulator;
let mailbox: MailboxApi;
const delivered: SentThroughProvider[] = [];

const mime = (messageId: string, subject: string, extra = '') =>
  Buffer.from(`From: ${SENDER}\r\nTo: jane@prospect.test\r\nSubject: ${subject}\r\nMessage-ID: ${messageId}\r\n${extra}Content-Type: text/plain; charset=utf-8\r\n\r\nHello Jane`, 'utf8');

beforeAll(async () => {
  process.env.SERVICE_MODE = 'local';
  emulator = await startMailProviderEmulator({ port: 0, file: null, onSent: (s) => delivered.push(s) });
  const settings: ProviderSettings = {
    kind: 'microsoft',
    clientId: emulator.clients.microsoft.client_id,
    clientSecret: emulator.clients.microsoft.client_secret,
    issuer: 'https://login.microsoftonline.com/common/v2.0',
    authorizationEndpoint: `${emulator.baseUrl}/microsoft/oauth/authorize`,
    tokenEndpoint: `${emulator.baseUrl}/microsoft/oauth/token`,
    apiBase: `${emulator.baseUrl}/microsoft/graph`,
    scopes: SCOPES.microsoft,
  };
  const verifier = await newPkceVerifier();
  const consent = await fetch(await authorizationUrl(settings, { redirectUri: 'http://127.0.0.1:9/callback/', state: 'st', verifier, loginHint: SENDER }), { redirect: 'manual' });
  await consent.body?.cancel();
  const tokens = await exchangeCode(settings, new URL(consent.headers.get('location')!), { verifier, state: 'st' });
  mailbox = graphMailbox(settings.apiBase, tokens.accessToken);
});
afterAll(async () => {
  await emulator?.stop();
});

test('a step-1 follow-up sent with the conversationId of step 0 lands in that conversation, answering its latest message', async () => {
  const step0 = await mailbox.send({ raw: mime('<step0@seller.test>', 'Quick question') });
  expect(step0).toEqual({ providerMessageId: expect.any(String), messageId: '<step0@seller.test>', threadId: expect.any(String) });

  const step1 = await mailbox.send({ raw: mime('<step1@seller.test>', 'Re: Quick question'), threadId: step0.threadId });
  expect(step1.threadId).toBe(step0.threadId);
  expect(step1.messageId).toBe('<step1@seller.test>');
  expect(step1.providerMessageId).not.toBe(step0.providerMessageId);
  const stored = emulator.mailbox(SENDER)!.messages.find((m) => m.id === step1.providerMessageId)!;
  expect(stored.isDraft).toBe(false);
  expect(stored.raw).toMatch(/^In-Reply-To: <step0@seller\.test>\r?$/m);

  const step2 = await mailbox.send({ raw: mime('<step2@seller.test>', 'Re: Quick question'), threadId: step0.threadId });
  expect(step2.threadId).toBe(step0.threadId);
  expect(emulator.mailbox(SENDER)!.messages.find((m) => m.id === step2.providerMessageId)!.raw).toMatch(/^In-Reply-To: <step1@seller\.test>\r?$/m);
  expect(delivered.map((d) => d.providerMessageId)).toEqual([step0.providerMessageId, step1.providerMessageId, step2.providerMessageId]);
});

test('the same MIME without a thread starts a conversation of its own; a follow-up that carries its own In-Reply-To keeps it', async () => {
  const first = await mailbox.send({ raw: mime('<other0@seller.test>', 'Another topic') });
  const unthreaded = await mailbox.send({ raw: mime('<other1@seller.test>', 'Unrelated') });
  expect(unthreaded.threadId).not.toBe(first.threadId);
  const followUp = await mailbox.send({ raw: mime('<other2@seller.test>', 'Re: Another topic', 'In-Reply-To: <other0@seller.test>\r\nReferences: <other0@seller.test>\r\n'), threadId: first.threadId });
  expect(followUp.threadId).toBe(first.threadId);
  const raw = emulator.mailbox(SENDER)!.messages.find((m) => m.id === followUp.providerMessageId)!.raw;
  expect(raw.match(/^In-Reply-To:/gim)).toHaveLength(1);
});
