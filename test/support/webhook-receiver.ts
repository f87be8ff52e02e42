import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * A loopback webhook subscriber that verifies every delivery with the Standard Webhooks library, as a
 * customer's receiver would. `failNext(n)` makes the next n deliveries answer 500.
 */
export interface Received {
  headers: Record<string, string>;
  body: any;
  verified: boolean;
  status: number;
}

/**
 * A loopback HTTP server for webhook deliveries: every request's raw body and string headers go to
 * `answer`, whose status is the reply. The receivers below say what to record and answer.
 */
export abstract class LoopbackHookServer {
  private server!: Server;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  protected abstract answer(raw: string, headers: Record<string, string>): number;

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      res.writeHead(this.answer(raw, headers));
      res.end();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}

export class WebhookReceiver extends LoopbackHookServer {
  readonly received: Received[] = [];
  private failures = 0;
  constructor(private secrets: string[]) {
    super();
  }

  setSecrets(secrets: string[]) {
    this.secrets = secrets;
  }

  /** Verify deliveries with `secret` too (a new tenant's signing secret). */
  addSecret(secret: string) {
    this.secrets = [...this.secrets, secret];
  }

  failNext(n: number) {
    this.failures = n;
  }

  protected answer(raw: string, headers: Record<string, string>): number {
    const verified = this.secrets.some((s) => {
      try {
        new Webhook(s).verify(raw, headers);
        return true;
      } catch {
        return false;
      }
    });
    const status = this.failures > 0 ? 500 : 204;
    if (this.failures > 0) this.failures--;
    this.received.push({ headers, body: JSON.parse(raw), verified, status });
    return status;
  }

  for(jobId: string): Received[] {
    return this.received.filter((r) => r.body.id === jobId);
  }
}
