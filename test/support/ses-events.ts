import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

/**
 * SES events as EventBridge delivers them, from the fixtures in test/unit/outreach/fixtures/ses/ (built from
 * the documented event records), re-addressed to one message and recipient.
 */
export type SesFixture = 'bounce-permanent' | 'bounce-transient' | 'complaint' | 'delivery';

export function sesFixture(name: SesFixture): Record<string, any> {
  return JSON.parse(readFileSync(new URL(`../unit/outreach/fixtures/ses/${name}.json`, import.meta.url), 'utf8'));
}

export function sesEventFor(name: SesFixture, opts: { messageId: string; recipient: string; id?: string }): Record<string, any> {
  const event = sesFixture(name);
  event.id = opts.id ?? randomUUID();
  event.detail.mail.messageId = opts.messageId;
  event.detail.mail.destination = [opts.recipient];
  if (event.detail.bounce) event.detail.bounce.bouncedRecipients[0].emailAddress = opts.recipient;
  if (event.detail.complaint) event.detail.complaint.complainedRecipients[0].emailAddress = opts.recipient;
  return event;
}
