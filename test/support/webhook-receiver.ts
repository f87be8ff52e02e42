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

export class WebhookReceiver {
  readonly received: Received[] = [];
  private server!: Server;
  private failures = 0;
  port = 0;
  constructor(private secrets: string[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  setSecrets(secrets: string[]) {
    this.secrets = secrets;
  }

  failNext(n: number) {
    this.failures = n;
  }

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
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
      res.writeHead(status);
      res.end();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  for(jobId: string): Received[] {
    return this.received.filter((r) => r.body.id === jobId);
  }

  stop(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}
