import { interpretSesEvent, SesEventSchema } from '../../../shared/catalog/ses-event-schema.js';
import { QUEUE_MESSAGES, messages, parseMessage, MalformedMessageError } from '../../../shared/catalog/messages.js';
import { sesRecipientMessageIds } from '../../../shared/adapters/mailer.js';
import { sesFixture } from '../../support/ses-events.js';

describe('SES events as EventBridge delivers them', () => {
  test('a permanent bounce names its message and its recipients (lower-cased)', () => {
    const event = SesEventSchema.parse(sesFixture('bounce-permanent'));
    expect(interpretSesEvent(event)).toEqual({
      kind: 'bounce',
      eventId: 'b4a7c1d2-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
      sesMessageId: '0102019a1b2c3d4e-5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c-000000',
      recipients: ['recipient@example.com'],
      bounceType: 'Permanent',
    });
  });

  test('a transient bounce is ignored: the mailbox may accept mail tomorrow', () => {
    const feedback = interpretSesEvent(SesEventSchema.parse(sesFixture('bounce-transient')));
    expect(feedback).toMatchObject({ kind: 'ignored', reason: 'transient bounce' });
  });

  test('a complaint names the complaining recipients', () => {
    const feedback = interpretSesEvent(SesEventSchema.parse(sesFixture('complaint')));
    expect(feedback).toEqual({
      kind: 'complaint',
      eventId: 'd6c9e3f4-7081-4cad-9e2f-3a4b5c6d7e8f',
      sesMessageId: '0102019a1b2c3d4e-5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c-000000',
      recipients: ['recipient@example.com'],
    });
  });

  test('other SES events (a delivery) are ignored', () => {
    expect(interpretSesEvent(SesEventSchema.parse(sesFixture('delivery')))).toMatchObject({ kind: 'ignored', reason: 'not a bounce or complaint (Email Delivered)' });
  });

  test('a "bounce" without its bounce object, or from another source, is not taken for one', () => {
    const noBody = sesFixture('bounce-permanent');
    delete noBody.detail.bounce;
    expect(interpretSesEvent(SesEventSchema.parse(noBody)).kind).toBe('ignored');
    expect(SesEventSchema.safeParse({ ...sesFixture('bounce-permanent'), source: 'aws.s3' }).success).toBe(false);
  });

  test('an event without the message id it concerns is refused', () => {
    const event = sesFixture('complaint');
    delete event.detail.mail.messageId;
    expect(SesEventSchema.safeParse(event).success).toBe(false);
  });

  test('the queue message is the event under kind ses_event, as the rule’s input transformer makes it', () => {
    const event = sesFixture('bounce-permanent');
    const body = JSON.stringify({ kind: 'ses_event', event });
    const parsed = parseMessage('mail-events', body);
    expect(parsed.kind).toBe('ses_event');
    expect(parsed.event.detail.mail.messageId).toBe(event.detail.mail.messageId);
    // Fields the service does not read are kept, not refused: AWS may add to the record.
    expect((parsed.event.detail as Record<string, unknown>).bounce).toMatchObject({ reportingMTA: 'dsn; mta.example.com' });
    expect(QUEUE_MESSAGES['mail-events'].safeParse(messages.sesEvent(SesEventSchema.parse(event))).success).toBe(true);
    expect(() => parseMessage('mail-events', JSON.stringify(event))).toThrow(MalformedMessageError);
  });
});

describe('the Message-ID recipients of an SES send see', () => {
  test('us-east-1: <id@email.amazonses.com>', () => {
    expect(sesRecipientMessageIds('0100abc-000000', 'us-east-1')).toEqual(['<0100abc-000000@email.amazonses.com>']);
  });

  test('other regions: <id@region.amazonses.com>, and the global form too', () => {
    expect(sesRecipientMessageIds('0102abc-000000', 'eu-west-1')).toEqual(['<0102abc-000000@eu-west-1.amazonses.com>', '<0102abc-000000@email.amazonses.com>']);
  });

  test('no id, no pointer', () => {
    expect(sesRecipientMessageIds('', 'eu-west-1')).toEqual([]);
  });
});
