import { Stack } from 'aws-cdk-lib';
import { EventBus, EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SES_BOUNCE_DETAIL_TYPE, SES_COMPLAINT_DETAIL_TYPE, SES_DELIVERY_DETAIL_TYPE } from '../../shared/catalog/ses-event-schema.js';

/**
 * SES bounce and complaint events: every SES send names this configuration set (`SES_CONFIGURATION_SET`),
 * whose event destination publishes bounces and complaints to the default EventBridge bus; a rule takes the
 * set's events ("Email Bounced", "Email Complaint Received", "Email Delivered" for the deliverability record) to the mail-events queue, wrapped as the queue
 * message `{"kind":"ses_event","event":<the event>}`, and its worker applies them (shared/outreach/ses-events.ts).
 * The queue's policy lets EventBridge send only on behalf of this rule.
 */
export const mailConfigurationSetName = (prefix: string) => `${prefix}-mail`;

export interface MailEventsProps {
  readonly prefix: string;
  readonly queue: IQueue;
  /** Where EventBridge puts an event it could not deliver to the queue within its retry policy. */
  readonly deadLetterQueue: IQueue;
}

export class MailEvents extends Construct {
  readonly configurationSet: ConfigurationSet;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);
    const name = mailConfigurationSetName(props.prefix);
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', { configurationSetName: name });
    // SES publishes to the account's default bus only.
    this.configurationSet.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT, EmailSendingEvent.DELIVERY],
    });
    this.rule = new Rule(this, 'Rule', {
      description: `SES bounces and complaints of the ${name} configuration set → the mail-events queue`,
      eventPattern: {
        source: ['aws.ses'],
        detailType: [SES_BOUNCE_DETAIL_TYPE, SES_COMPLAINT_DETAIL_TYPE, SES_DELIVERY_DETAIL_TYPE],
        account: [Stack.of(this).account],
        // SES tags every event with the configuration set the send named.
        detail: { mail: { tags: { 'ses:configuration-set': [name] } } },
      },
    });
    this.rule.addTarget(
      new SqsQueue(props.queue, { message: RuleTargetInput.fromObject({ kind: 'ses_event', event: EventField.fromPath('$') }), deadLetterQueue: props.deadLetterQueue }),
    );
  }
}
