import { createServer, request, type Server } from 'node:http';

/**
 * A recording pass-through in front of the SES stand-in. The stand-in keeps raw (MIME) sends only as
 * parsed fields — without Message-ID, List-Unsubscribe or the Bcc envelope — so this proxy keeps each
 * SendEmail request's raw message and destination as sent, then forwards the request unchanged. The SDK
 * talks to the proxy exactly as it would to SES.
 */
export interface CapturedSend {
  raw: Buffer | null;
  destination: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
  from: string | null;
  simple: { subject?: string; text?: string; html?: string } | null;
  provider_message_id: string | null;
  at: number;
  /** SMTP sends: every envelope recipient (bcc is whoever is not in To/Cc). */
  envelope_to?: string[];
  /** SMTP sends: the login the client authenticated with (never its password); null when it sent without one. */
  auth_user?: string | null;
  /** Gmail API and Graph sends: they deliver to the message's own To/Cc headers, plus `destination.BccAddresses`. */
  provider?: 'google' | 'microsoft';
  /** SES sends: the configuration set the request named. */
  configuration_set?: string | null;
}

export async function startSesCapture(opts: { upstreamPort: number; port: number; now: () => number }): Promise<{ server: Server; port: number; sends: CapturedSend[]; stop(): Promise<void> }> {
  const sends: CapturedSend[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let captured: CapturedSend | null = null;
    if (req.method === 'POST' && req.url?.startsWith('/v2/email/outbound-emails')) {
      try {
        const j = JSON.parse(body.toString('utf8'));
        captured = {
          raw: j.Content?.Raw?.Data ? Buffer.from(j.Content.Raw.Data, 'base64') : null,
          destination: j.Destination ?? {},
          from: j.FromEmailAddress ?? null,
          simple: j.Content?.Simple ? { subject: j.Content.Simple.Subject?.Data, text: j.Content.Simple.Body?.Text?.Data, html: j.Content.Simple.Body?.Html?.Data } : null,
          provider_message_id: null,
          at: opts.now(),
          configuration_set: j.ConfigurationSetName ?? null,
        };
      } catch {
        captured = null;
      }
    }
    const up = request({ host: '127.0.0.1', port: opts.upstreamPort, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      const out: Buffer[] = [];
      upRes.on('data', (c) => out.push(c));
      upRes.on('end', () => {
        const text = Buffer.concat(out);
        if (captured && upRes.statusCode === 200) {
          try {
            captured.provider_message_id = JSON.parse(text.toString('utf8')).MessageId ?? null;
          } catch {
            /* not JSON */
          }
          sends.push(captured);
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        res.end(text);
      });
    });
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    up.end(body);
  });
  await new Promise<void>((r) => server.listen(opts.port, '127.0.0.1', r));
  return {
    server,
    port: (server.address() as { port: number }).port,
    sends,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * The local SMTP server for `smtp` sending accounts (the deployment's relay, and every account's own server):
 * records each message as sent. AUTH is offered without TLS (the twin has no certificates; the mailer never
 * sends a password in clear text outside local mode). A login in `logins` must carry its password, or the
 * send is refused with 535 as a real server would; any other login is accepted and recorded.
 */
export interface SmtpSink {
  port: number;
  logins: Map<string, string>;
  stop(): Promise<void>;
}

export async function startSmtpSink(opts: { port: number; now: () => number; sends: CapturedSend[] }): Promise<SmtpSink> {
  const { SMTPServer } = await import('smtp-server');
  const logins = new Map<string, string>();
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      const expected = logins.get(auth.username ?? '');
      if (expected !== undefined && expected !== auth.password) return callback(new Error('Invalid username or password'));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        opts.sends.push({
          raw: Buffer.concat(chunks),
          destination: {},
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          simple: null,
          provider_message_id: null,
          at: opts.now(),
          envelope_to: session.envelope.rcptTo.map((r) => r.address),
          auth_user: typeof session.user === 'string' ? session.user : null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(opts.port, '127.0.0.1', () => r()));
  return { port: (server.server.address() as { port: number }).port, logins, stop: () => new Promise<void>((r) => server.close(() => r())) };
}
