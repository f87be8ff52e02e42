import { isIP } from 'node:net';
import type { InboundOutcome } from '../outreach/inbound-mail.js';
import { logger } from '../core/logger.js';
import { SES_MAX_MESSAGE_BYTES } from './s3-emulator.js';

/**
 * The twin's receiving MX: an SMTP listener on 127.0.0.1 standing in for SES's inbound endpoint
 * (`inbound-smtp.<region>.amazonaws.com`). Each message it accepts goes to SES receiving's stand-in
 * (`receiveBySes`: stored in the inbound bucket, then the inbound-mail function on its S3 event), so mail sent
 * with any SMTP client (nodemailer, swaks) to the twin travels the production path.
 *
 * - Any recipient is accepted. In AWS what SES takes is decided by DNS (the domains whose MX points at SES)
 *   and the receipt rule (`-c inboundRecipients`, else every verified identity), neither of which exists on
 *   the twin; the function matches a message by its In-Reply-To/References within the receiving mailbox, so
 *   mail for an address that matches nothing is stored and answers `matched: false`, which is what SES
 *   receiving does for any address of a receiving domain. Nothing is relayed: the listener only stores.
 * - SES's limit: a message over 40 MB (headers included) is refused with `552` (SIZE is advertised, so a
 *   client that declares a larger one is refused at MAIL FROM, and nodemailer refuses it before sending).
 * - No AUTH (an MX takes mail from anyone) and no STARTTLS (the twin has no certificate); no reverse DNS
 *   lookup of the client: no question ever leaves the machine.
 * - The answer to DATA waits until the function has run, so a client that got `250` can look at the result;
 *   the function's own failure does not change that answer (in AWS SES accepts the message before S3's event
 *   runs the function): it is logged and kept in `received`. A failure to store the message is `451`.
 */
export interface InboundSmtpOptions {
  /** 0: any free port. `npm start` uses INBOUND_SMTP_PORT (default 2525). */
  port: number;
}

/** One message the listener took, and what became of it. */
export interface InboundSmtpDelivery {
  /** SES's message id; the object is `inbound/<id>`. */
  message_id: string;
  from: string;
  to: string[];
  size: number;
  outcomes: InboundOutcome[] | null;
  /** The function's failure (`AccessDeniedException: User: …`), when it failed. */
  error: string | null;
}

export interface InboundSmtp {
  host: '127.0.0.1';
  port: number;
  /** The latest deliveries, oldest first (at most RECENT). */
  received: InboundSmtpDelivery[];
  stop(): Promise<void>;
}

const RECENT = 100;

function isLoopback(address: string): boolean {
  const a = address.replace(/^::ffff:/, '');
  return isIP(a) === 4 ? a.startsWith('127.') : a === '::1';
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

export async function startInboundSmtp(opts: InboundSmtpOptions): Promise<InboundSmtp> {
  const { SMTPServer } = await import('smtp-server');
  const received: InboundSmtpDelivery[] = [];
  const region = process.env.AWS_REGION ?? 'us-east-1';
  // Loaded with the first message: SES receiving's path loads the S3 client and the inbound-mail function.
  const ses = () => import('./ses-receiving.js');
  const server = new SMTPServer({
    name: `inbound-smtp.${region}.amazonaws.com`,
    banner: 'the local stack\'s SES receiving (loopback only)',
    size: SES_MAX_MESSAGE_BYTES,
    rejectOversized: true,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    closeTimeout: 1000,
    logger: false,
    onConnect(session, callback) {
      if (!isLoopback(session.remoteAddress)) return callback(smtpError(421, 'loopback only'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= SES_MAX_MESSAGE_BYTES) chunks.push(c);
      });
      stream.on('error', (e: Error) => callback(e));
      stream.on('end', () => {
        // Over the limit: smtp-server answers 552 itself (rejectOversized).
        if (stream.sizeExceeded) return callback();
        const raw = Buffer.concat(chunks);
        const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
        const client = { helo: session.hostNameAppearsAs || 'unknown', address: session.remoteAddress.replace(/^::ffff:/, '') };
        void (async () => {
          const { storeBySes, invokeInboundMail, MessageTooLarge } = await ses();
          let stored;
          try {
            stored = await storeBySes(raw, envelope, client);
          } catch (e) {
            if (e instanceof MessageTooLarge) return callback(smtpError(552, `5.3.4 Message too long: ${e.message}`));
            logger.warn('inbound smtp: the message could not be stored', { error: e as Error });
            return callback(smtpError(451, '4.3.0 The message could not be stored; try again later'));
          }
          const delivery: InboundSmtpDelivery = { message_id: stored.messageId, from: envelope.from, to: envelope.to, size: stored.size, outcomes: null, error: null };
          try {
            delivery.outcomes = await invokeInboundMail(stored);
          } catch (e) {
            delivery.error = `${(e as Error).name}: ${(e as Error).message}`;
            logger.warn('inbound smtp: the inbound-mail function failed', { key: stored.key, error: e as Error });
          }
          received.push(delivery);
          if (received.length > RECENT) received.shift();
          callback(null, `Ok ${stored.messageId}`);
        })().catch((e: unknown) => {
          logger.warn('inbound smtp: the message could not be received', { error: e as Error });
          callback(smtpError(451, '4.3.0 The message could not be received; try again later'));
        });
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (e: Error) =>
      reject((e as NodeJS.ErrnoException).code === 'EADDRINUSE' ? new Error(`the inbound SMTP port ${opts.port} is in use: set INBOUND_SMTP_PORT to another port (0: any free one)`) : e);
    server.once('error', failed);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (e: Error) => logger.warn('inbound smtp: connection error', { error: e }));
  return {
    host: '127.0.0.1',
    port: (server.server.address() as { port: number }).port,
    received,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
