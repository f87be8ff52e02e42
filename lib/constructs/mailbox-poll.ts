import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Schedule, ScheduleExpression, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAILBOX_POLL } from '../../shared/catalog/queues.js';
import { ServiceFunction, nagFinding, type BindingResources } from './service-function.js';

export interface MailboxPollProps {
  readonly prefix: string;
  readonly stage: string;
  readonly serviceName: string;
  readonly logLevel?: string;
  readonly resources: BindingResources;
  readonly alarmTopic: ITopic;
  /** Where Scheduler parks a run it could not deliver (shared with the sweeper schedule). */
  readonly scheduleDeadLetterQueue: IQueue;
}

/**
 * The mailbox poller: one function, invoked by one EventBridge Scheduler schedule every
 * `MAILBOX_POLL.rateMinutes`, that reads every connected mailbox from its cursor. One schedule rather than
 * one per mailbox: nothing to create, move or delete as mailboxes connect and disconnect, a single place
 * to see a stalled poll (the function's error alarm), and per-mailbox isolation inside the run (a failing
 * mailbox is logged and retried at the next run, the others go on).
 */
export class MailboxPoll extends Construct {
  readonly pollFunction: ServiceFunction;
  readonly schedule: Schedule;
  readonly scheduleRole: Role;

  constructor(scope: Construct, id: string, props: MailboxPollProps) {
    super(scope, id);
    this.pollFunction = new ServiceFunction(this, 'MailboxPollFn', {
      stage: props.stage,
      serviceName: props.serviceName,
      ...(props.logLevel ? { logLevel: props.logLevel } : {}),
      module: MAILBOX_POLL.module,
      description: 'Mailbox poller: replies and bounces in every connected Gmail and Microsoft 365 mailbox',
      timeout: Duration.seconds(MAILBOX_POLL.timeoutSeconds),
    });
    ServiceFunction.applyBindings(this.pollFunction, MAILBOX_POLL.bindings, props.resources);
    this.pollFunction.alarmOnErrors(props.alarmTopic);

    const stack = Stack.of(this);
    const defaultGroupArn = stack.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' });
    this.scheduleRole = new Role(this, 'MailboxPollScheduleRole', {
      description: 'EventBridge Scheduler invokes the mailbox poller every minute',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': defaultGroupArn },
        },
      }),
    });
    this.schedule = new Schedule(this, 'MailboxPollSchedule', {
      scheduleName: `${props.prefix}-mailbox-poll`,
      description: `Every ${MAILBOX_POLL.rateMinutes} minute(s): new mail in every connected mailbox`,
      schedule: ScheduleExpression.rate(Duration.minutes(MAILBOX_POLL.rateMinutes)),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(this.pollFunction, {
        role: this.scheduleRole,
        deadLetterQueue: props.scheduleDeadLetterQueue,
        // A run superseded by the next one is not worth delivering late: every run reads from the cursors.
        maxEventAge: Duration.minutes(MAILBOX_POLL.rateMinutes),
        retryAttempts: 2,
      }),
    });
    Validations.of(this.scheduleRole).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', `${this.pollFunction.functionArn}:*`),
      reason: 'Lambda grantInvoke names the function and its versions and aliases (`:*`); no other function.',
    });
  }
}
