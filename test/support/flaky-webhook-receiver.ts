import { Webhook } from 'standardwebhooks';
import { LoopbackHookServer } from './webhook-receiver.js';

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

export class FlakyWebhookReceiver extends LoopbackHookServer {
  readonly deliveries: Delivery[] = [];
  private readonly secrets: string[] = [];

  constructor(private readonly failsFirstAttempt: (jobId: string) => boolean) {
    super();
  }

  addSecret(secret: string): void {
    this.secrets.push(secret);
  }

  protected answer(raw: string, headers: Record<string, string>): number {
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
    return status;
  }

  for(jobId: string): Delivery[] {
    return this.deliveries.filter((d) => d.jobId === jobId);
  }
}
