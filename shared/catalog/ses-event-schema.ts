import * as z from '../core/zod.js';

/**
 * SES sending events as EventBridge delivers them from a configuration set's event destination (default
 * bus): the EventBridge envelope (`id`, `source: aws.ses`, `detail-type` such as "Email Bounced" or "Email
 * Complaint Received") around the SES event record in `detail` (`eventType`, `mail`, and `bounce` or
 * `complaint`). Only the fields the service acts on are checked; AWS may add others, which are kept unread.
 */
// Built at the first parse, not at module init (docs/benchmarks.md "Cold starts").
export const SesEventSchema = z.lazy(() => {
  const address = z.string().check(z.trim(), z.minLength(3), z.maxLength(320));
  const recipients = (field: 'emailAddress') => z.array(z.looseObject({ [field]: address })).check(z.maxLength(100));

  return z.looseObject({
    id: z.string().check(z.minLength(1), z.maxLength(128)),
    'detail-type': z.string().check(z.minLength(1), z.maxLength(128)),
    source: z.literal('aws.ses'),
    detail: z.looseObject({
      eventType: z.optional(z.string().check(z.maxLength(64))),
      mail: z.looseObject({ messageId: z.string().check(z.minLength(1), z.maxLength(256)) }),
      bounce: z.optional(
        z.looseObject({
          bounceType: z.string().check(z.maxLength(64)),
          bounceSubType: z.optional(z.string().check(z.maxLength(64))),
          bouncedRecipients: recipients('emailAddress'),
        }),
      ),
      complaint: z.optional(
        z.looseObject({
          complainedRecipients: recipients('emailAddress'),
          complaintFeedbackType: z.optional(z.string().check(z.maxLength(64))),
        }),
      ),
    }),
  });
});
export type SesEvent = z.output<typeof SesEventSchema>;

export const SES_BOUNCE_DETAIL_TYPE = 'Email Bounced';
export const SES_COMPLAINT_DETAIL_TYPE = 'Email Complaint Received';
export const SES_DELIVERY_DETAIL_TYPE = 'Email Delivered';

/** What one event asks of the service. */
export type SesFeedback =
  | { kind: 'bounce'; eventId: string; sesMessageId: string; recipients: string[]; bounceType: string }
  | { kind: 'complaint'; eventId: string; sesMessageId: string; recipients: string[] }
  | { kind: 'ignored'; eventId: string; sesMessageId: string; reason: string; counts?: 'bounced_soft' | 'delivered' };

const lower = (list: { emailAddress: string }[]) => [...new Set(list.map((r) => r.emailAddress.toLowerCase()))];

/**
 * A permanent bounce marks its recipients bounced; a transient or undetermined one (a full mailbox, a
 * message too large, SES giving up on a soft failure without knowing why) is only logged, since the address
 * may well work tomorrow. A complaint suppresses its recipients. Any other event type is ignored.
 */
export function interpretSesEvent(event: SesEvent): SesFeedback {
  const base = { eventId: event.id, sesMessageId: event.detail.mail.messageId };
  const type = event['detail-type'];
  if (type === SES_BOUNCE_DETAIL_TYPE && event.detail.bounce) {
    const { bounceType, bouncedRecipients } = event.detail.bounce;
    // Counted in the account's deliverability record all the same (a soft bounce), but it acts on nothing.
    if (bounceType !== 'Permanent') return { ...base, kind: 'ignored', reason: `${bounceType.toLowerCase()} bounce`, counts: 'bounced_soft' };
    return { ...base, kind: 'bounce', recipients: lower(bouncedRecipients), bounceType };
  }
  if (type === SES_COMPLAINT_DETAIL_TYPE && event.detail.complaint) {
    return { ...base, kind: 'complaint', recipients: lower(event.detail.complaint.complainedRecipients) };
  }
  if (type === SES_DELIVERY_DETAIL_TYPE) return { ...base, kind: 'ignored', reason: `not a bounce or complaint (${type})`, counts: 'delivered' };
  return { ...base, kind: 'ignored', reason: `not a bounce or complaint (${type})` };
}
