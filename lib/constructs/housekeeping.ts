import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Schedule, ScheduleExpression, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEAD_LETTERS, QUEUE_LIST, SWEEPER, type QueueKey } from '../../shared/catalog/queues.js';
import { ServiceFunction, eventSourceScaling, nagFinding, type BindingResources } from './service-function.js';

export interface HousekeepingProps {
  readonly prefix: string;
  readonly stage: string;
  readonly serviceName: string;
  readonly logLevel?: string;
  readonly resources: BindingResources;
  readonly deadLetterQueues: Readonly<Record<QueueKey, IQueue>>;
  readonly alarmTopic: ITopic;
}

/**
 * The two functions no work queue feeds: the dead-letter consumer, with one event source per DLQ (a record's
 * `eventSourceARN` names the DLQ, `<prefix>-<queue>-dlq`, so it needs no environment of its own to tell them
 * apart), and the sweeper, invoked by an EventBridge Scheduler schedule every `SWEEPER.rateMinutes`.
 */
export class Housekeeping extends Construct {
  readonly deadLetterFunction: ServiceFunction;
  readonly sweeperFunction: ServiceFunction;
  readonly sweeperSchedule: Schedule;
  /** Assumed by Scheduler for the sweeper schedule only: invoke the sweeper, park an undeliverable run. */
  readonly sweeperScheduleRole: Role;
  /** Runs of the sweeper schedule Scheduler could not deliver. */
  readonly sweeperScheduleDlq: Queue;

  constructor(scope: Construct, id: string, props: HousekeepingProps) {
    super(scope, id);
    const fnProps = { stage: props.stage, serviceName: props.serviceName, ...(props.logLevel ? { logLevel: props.logLevel } : {}) };

    this.deadLetterFunction = new ServiceFunction(this, 'DeadLettersFn', {
      ...fnProps,
      module: DEAD_LETTERS.module,
      description: 'Dead-letter consumer: a message that gave up ends its workflow cleanly',
      timeout: Duration.seconds(DEAD_LETTERS.timeoutSeconds),
    });
    ServiceFunction.applyBindings(this.deadLetterFunction, DEAD_LETTERS.bindings, props.resources);
    this.deadLetterFunction.alarmOnErrors(props.alarmTopic);
    for (const def of QUEUE_LIST) {
      this.deadLetterFunction.addEventSource(
        new SqsEventSource(props.deadLetterQueues[def.key], { batchSize: DEAD_LETTERS.batchSize, reportBatchItemFailures: true, ...eventSourceScaling(this, DEAD_LETTERS.maxConcurrency) }),
      );
    }

    this.sweeperFunction = new ServiceFunction(this, 'SweeperFn', {
      ...fnProps,
      module: SWEEPER.module,
      description: 'Sweeper: re-drives or ends every record whose due time has passed',
      timeout: Duration.seconds(SWEEPER.timeoutSeconds),
    });
    ServiceFunction.applyBindings(this.sweeperFunction, SWEEPER.bindings, props.resources);
    this.sweeperFunction.alarmOnErrors(props.alarmTopic);

    this.sweeperScheduleDlq = new Queue(this, 'SweeperScheduleDlq', {
      queueName: `${props.prefix}-sweeper-schedule-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.sweeperScheduleDlq).acknowledge(
      {
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is the dead-letter target of the sweeper schedule (Scheduler DeadLetterConfig), which cdk-nag does not recognise as a DLQ use.',
      },
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason: 'This is a dead-letter queue of schedule runs for an operator to inspect under its depth alarm; the next run supersedes a lost one.',
      },
    );
    new Alarm(this, 'SweeperScheduleDlqDepth', {
      alarmDescription: `${props.prefix}: Scheduler could not invoke the sweeper`,
      metric: this.sweeperScheduleDlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(props.alarmTopic));

    const stack = Stack.of(this);
    // The schedule lives in the account's default group, not the service group of one-time schedules: the
    // workers may create and delete anything in that group, and must not be able to delete the sweep.
    const defaultGroupArn = stack.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' });
    this.sweeperScheduleRole = new Role(this, 'SweeperScheduleRole', {
      description: 'EventBridge Scheduler invokes the sweeper every few minutes',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          // Confused-deputy guard: only this account's default schedule group may use the role.
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': defaultGroupArn },
        },
      }),
    });
    this.sweeperSchedule = new Schedule(this, 'SweeperSchedule', {
      scheduleName: `${props.prefix}-sweeper`,
      description: `Every ${SWEEPER.rateMinutes} minutes: re-drive or end overdue work`,
      schedule: ScheduleExpression.rate(Duration.minutes(SWEEPER.rateMinutes)),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(this.sweeperFunction, {
        role: this.sweeperScheduleRole,
        deadLetterQueue: this.sweeperScheduleDlq,
        // A run not delivered by the time the next one is due is superseded by it: every sweep looks at
        // everything overdue. Scheduler backs off exponentially, so a few attempts fill that window.
        maxEventAge: Duration.minutes(SWEEPER.rateMinutes),
        retryAttempts: 3,
      }),
    });
    Validations.of(this.sweeperScheduleRole).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', `${this.sweeperFunction.functionArn}:*`),
      reason: 'Lambda grantInvoke names the function and its versions and aliases (`:*`); no other function.',
    });
  }
}
