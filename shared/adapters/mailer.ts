import { SendEmailCommand, SESv2ServiceException } from '@aws-sdk/client-sesv2';
import { createTransport, type Transporter } from 'nodemailer';
import { sesClient } from './ses-client.js';
import { sealContext, secretBox } from './secret-box.js';
import { relayCredentials } from './smtp-relay-credentials.js';
import { isLocalMode, optionalEnv, requireEnv } from '../core/env.js';
import { LruMap } from '../core/lru-map.js';
import { dropOnReset } from './aws-client.js';
import { isPublicAddress, systemResolver, type Resolver } from './web-target.js';
import { MailRefusedError } from './mail-refused.js';

/**
 * Sending through the caller's mailbox. SES (v2, raw MIME) for senders on a verified domain identity; locally
 * the same client reaches the SES stand-in, which keeps every message for `GET /api/console/v1/dev/mailbox/`.
 * `smtp` accounts go out through their own SMTP server, or through SES when the console says so. A `google`
 * or `microsoft` account connected through OAuth sends through the Gmail API or Microsoft Graph
 * (shared/mailboxes/mailbox-mailer.ts, which also holds `mailerFor`, the choice of engine per account).
 */
export interface OutgoingMail {
  raw: Buffer;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  /** The provider thread a follow-up continues (Gmail threadId); engines without threads ignore it. */
  threadId?: string | null;
}

export interface SentMail {
  providerMessageId: string;
  /** The Message-ID the recipient sees, when the engine reads it back (a provider may replace ours). */
  messageId?: string | null;
  /**
   * Message-IDs (with angle brackets) the recipient may see instead of the one we set, when the provider
   * rewrites it in a known form (SES): a reply's In-Reply-To names one of these.
   */
  recipientMessageIds?: string[];
  /** The provider's thread (Gmail threadId, Graph conversationId). */
  threadId?: string | null;
}

/** `send` throws MailRefusedError (mail-refused.ts) only when nothing was accepted; see there. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<SentMail>;
  /**
   * True when the engine delivers to `to`/`cc`/`bcc` as given, whatever the headers say (SES Destination, the
   * SMTP envelope). Absent: the engine delivers to the message's own To/Cc/Bcc headers (Gmail API, Microsoft
   * Graph), so a message can only be shown to whom it is delivered.
   */
  readonly envelopeDelivery?: boolean;
}

/**
 * SES refused the request (a client fault: message rejected, sender not verified, sending paused, throttled):
 * it accepted nothing. A server fault or a network error may come after SES took the message.
 */
export function sesRefusal(e: unknown): MailRefusedError | null {
  return e instanceof SESv2ServiceException && e.$fault === 'client' ? new MailRefusedError(`SES refused the message (${e.name})`, { cause: e }) : null;
}

/**
 * Nodemailer's error is a refusal when the server answered with a 4xx/5xx reply (to a command or to the end of
 * the data: either way it did not take the message), or when no connection could be made at all. A reset,
 * a timeout or a close without a reply, after the data may have been sent, is not.
 */
export function smtpRefusal(e: unknown): MailRefusedError | null {
  const err = e as { responseCode?: unknown; originalCode?: unknown; code?: unknown };
  const replied = typeof err.responseCode === 'number' && err.responseCode >= 400;
  const neverConnected = err.originalCode === 'ECONNREFUSED' || err.code === 'EDNS';
  return replied || neverConnected ? new MailRefusedError(`the SMTP server refused the message (${String(err.responseCode ?? err.originalCode ?? err.code)})`, { cause: e }) : null;
}

/**
 * The Message-ID SES gives a message: its own id at `email.amazonses.com` in us-east-1 and at
 * `<region>.amazonses.com` elsewhere. Outside us-east-1 both forms are kept: matching a reply costs one
 * more pointer, missing one loses stop-on-reply.
 */
export function sesRecipientMessageIds(sesMessageId: string, region: string): string[] {
  if (!sesMessageId) return [];
  const global = `<${sesMessageId}@email.amazonses.com>`;
  return region === 'us-east-1' || !region ? [global] : [`<${sesMessageId}@${region}.amazonses.com>`, global];
}

export const sesMailer: Mailer = {
  envelopeDelivery: true,
  async send(mail) {
    // The configuration set publishes bounces and complaints to EventBridge (lib/constructs/mail-events.ts).
    const configurationSet = optionalEnv('SES_CONFIGURATION_SET');
    const out = await sesClient()
      .send(
        new SendEmailCommand({
          FromEmailAddress: mail.from,
          Destination: { ToAddresses: mail.to.length ? mail.to : undefined, CcAddresses: mail.cc.length ? mail.cc : undefined, BccAddresses: mail.bcc.length ? mail.bcc : undefined },
          Content: { Raw: { Data: mail.raw } },
          ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        }),
      )
      .catch((e: unknown) => {
        throw sesRefusal(e) ?? e;
      });
    const id = out.MessageId ?? '';
    return { providerMessageId: id, recipientMessageIds: sesRecipientMessageIds(id, optionalEnv('AWS_REGION') ?? '') };
  },
};

async function sendSmtp(transport: Transporter, mail: OutgoingMail): Promise<SentMail> {
  const info = await transport.sendMail({ envelope: { from: mail.from, to: [...mail.to, ...mail.cc, ...mail.bcc] }, raw: mail.raw }).catch((e: unknown) => {
    throw smtpRefusal(e) ?? e;
  });
  return { providerMessageId: String(info.messageId ?? '').replace(/^<|>$/g, '') };
}

/**
 * `smtp` sending accounts without settings of their own go out through the deployment's relay (`SMTP_HOST` /
 * `SMTP_PORT`, credentials from `SMTP_RELAY_SECRET_ARN` in AWS or `SMTP_USER` / `SMTP_PASS` locally, see
 * smtp-relay-credentials.ts); locally that is the stack's own SMTP sink, without authentication. The raw MIME is
 * passed through unchanged, with every recipient (bcc included) in the envelope only.
 */
let relay: Promise<Transporter> | undefined;

async function relayTransport(): Promise<Transporter> {
  const auth = await relayCredentials();
  return createTransport({
    host: requireEnv('SMTP_HOST'),
    port: Number(requireEnv('SMTP_PORT')),
    secure: false,
    ignoreTLS: isLocalMode(),
    // Port 587 upgrades with STARTTLS; without requireTLS a stripped STARTTLS offer would send in clear text.
    requireTLS: !isLocalMode(),
    auth,
  });
}

export const relayMailer: Mailer = {
  envelopeDelivery: true,
  async send(mail) {
    relay ??= relayTransport().catch((e: unknown) => {
      relay = undefined;
      throw e;
    });
    return sendSmtp(await relay, mail);
  },
};

/**
 * The SMTP server a sending account sends through, as the account stores it (`StoredSmtpSettings` of
 * accounts/smtp-settings.ts has this shape): the password stays sealed until a transport is built.
 */
export interface SmtpServerSettings {
  host: string;
  port: number;
  username: string;
  tls: 'implicit' | 'starttls';
  password_sealed: string;
  version: number;
}

/**
 * Where an account's SMTP server is reached. In AWS: the first address of its host, after every address it
 * resolves to has been found public (the connection goes to that address, with the host name for TLS, so a
 * second lookup cannot steer it inward). On the twin nothing leaves loopback: `localhost` is used as named,
 * any other host is answered by the stack's SMTP sink.
 */
export async function smtpEndpoint(settings: SmtpServerSettings, resolver: Resolver = systemResolver): Promise<{ host: string; port: number; servername?: string }> {
  if (isLocalMode()) {
    return settings.host === 'localhost' ? { host: '127.0.0.1', port: settings.port } : { host: requireEnv('SMTP_HOST'), port: Number(requireEnv('SMTP_PORT')) };
  }
  const addresses = await resolver(settings.host);
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) throw new Error(`smtp host ${settings.host} does not resolve to public addresses only`);
  return { host: addresses[0]!, port: settings.port, servername: settings.host };
}

/** One transport per account and settings version: a changed password or host is used from the next send on. */
let accountTransports = new LruMap<string, Transporter>(200);
const transportKey = (account: { id: string }, settings: SmtpServerSettings) => `${account.id}#${settings.version}`;

async function accountTransport(account: { id: string }, settings: SmtpServerSettings): Promise<Transporter> {
  const key = transportKey(account, settings);
  const cached = accountTransports.get(key);
  if (cached) return cached;
  const [endpoint, password] = await Promise.all([smtpEndpoint(settings), secretBox().then((box) => box.open(settings.password_sealed, sealContext.smtpPassword(account.id)))]);
  const local = isLocalMode();
  const transport = createTransport({
    host: endpoint.host,
    port: endpoint.port,
    secure: !local && settings.tls === 'implicit',
    ignoreTLS: local,
    // With STARTTLS, a server that does not offer the upgrade (or an attacker stripping it) is refused.
    requireTLS: !local && settings.tls === 'starttls',
    ...(endpoint.servername ? { tls: { servername: endpoint.servername } } : {}),
    auth: { user: settings.username, pass: password },
  });
  accountTransports.set(key, transport);
  return transport;
}

export function accountSmtpMailer(account: { id: string; smtp: SmtpServerSettings }): Mailer {
  return { envelopeDelivery: true, send: async (mail) => sendSmtp(await accountTransport(account, account.smtp), mail) };
}

function resetSmtp(): void {
  void relay?.then((t) => t.close(), () => undefined);
  relay = undefined;
  accountTransports = new LruMap<string, Transporter>(200);
}
dropOnReset(resetSmtp);
