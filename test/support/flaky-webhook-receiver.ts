import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * A loopback webhook subscriber that answers 500 to the first attempt of the jobs `failsFirstAttempt`
 * picks and 204 to everything else, and records every delivery with its `webhook-id` and whether the
 * Standard Webhooks signature verified against one of the known secrets.
 *
 * The signature is checked without the library's five-minute timestamp tolerance: the service signs with
 * its own clock, which the tests move days ahead of the wall clock.
 */
export interface Delivery {
  jobId: string;
  eventType: string;
  webhookId: string | null;
  verified: boolean;
  status: number;
}

function signedWith(secret: string, raw: string, headers: Record<string, string>): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = (headers['webhook-signature'] ?? '').split(' ');
  if (!id || !Number.isInteger(timestamp)) return false;
  return signatures.includes(new Webhook(secret).sign(id, new Date(timestamp * 1000), raw));
}

export class FlakyWebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private readonly secrets: string[] = [];
  private server!: Server;
  port = 0;

  constructor(private readonly failsFirstAttempt: (jobId: string) => boolean) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  addSecret(secret: string): void {
    this.secrets.push(secret);
  }

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      let body: { id?: unknown; event_type?: unknown } = {};
      try {
        body = JSON.parse(raw);
      } catch {
        /* recorded with an empty job id */
      }
      const jobId = typeof body.id === 'string' ? body.id : '';
      const verified = this.secrets.some((s) => signedWith(s, raw, headers));
      const firstAttempt = !this.deliveries.some((d) => d.jobId === jobId);
      const status = firstAttempt && this.failsFirstAttempt(jobId) ? 500 : 204;
      this.deliveries.push({ jobId, eventType: String(body.event_type ?? ''), webhookId: headers['webhook-id'] ?? null, verified, status });
      res.writeHead(status);
      res.end();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  for(jobId: string): Delivery[] {
    return this.deliveries.filter((d) => d.jobId === jobId);
  }

  stop(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}
