import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricsNamespace, type MetricName } from '../../shared/core/metrics.js';

export interface MailAlarmsProps {
  readonly prefix: string;
  readonly serviceName: string;
  readonly stage: string;
  readonly topic: ITopic;
}

/** One alarm on a metric the functions count (shared/core/metrics.ts): its sum over `period` at or above `threshold`, in `datapoints` periods running. */
export interface MailAlarmDef {
  readonly metric: MetricName;
  readonly period: Duration;
  readonly threshold: number;
  readonly datapoints: number;
  readonly description: string;
}

/**
 * The alarms on inbound mail (docs/operating.md "Alarms"). The counts come from every function that handles mail
 * (the inbound-mail worker, the mailbox poller, the mail-events worker, the dead-letter consumer) as Embedded Metric
 * Format lines, one namespace per stage, with Powertools' `service` dimension. A period in which nothing was counted
 * has no data point, which is not a breach: no traffic is not an incident.
 */
export const MAIL_ALARMS: readonly MailAlarmDef[] = [
  {
    // A mailbox failing now and then is read again at the next run a minute later (the poller isolates mailboxes, and
    // a revoked consent disconnects the mailbox rather than failing it). One that fails in each of three 5-minute
    // periods running has been failing for 10–15 minutes: the provider is down or refusing, or the poll has a bug;
    // the replies and bounces in it are not being read.
    metric: 'mailbox_polls_failed',
    period: Duration.minutes(5),
    threshold: 1,
    datapoints: 3,
    description: 'a connected mailbox could not be read in each of the last three 5-minute periods: its replies and bounces are not being read',
  },
  {
    // Every one is a message the service read and could make nothing of: a reply or a bounce that moved nothing. The
    // hour-long period makes a burst (one odd sender to many addresses) one notification.
    metric: 'messages_unprocessable',
    period: Duration.hours(1),
    threshold: 1,
    datapoints: 1,
    description: 'an inbound message could not be understood in the last hour (each is recorded as an inbound issue for review)',
  },
  {
    // Handling a message failed (a table or Scheduler call), as a function error would: same standard as the
    // functions' own error alarms.
    metric: 'inbound_failed',
    period: Duration.minutes(5),
    threshold: 1,
    datapoints: 1,
    description: 'handling an inbound message failed in the last 5 minutes (it is retried; see the function logs)',
  },
];

export class MailAlarms extends Construct {
  readonly alarms: ReadonlyMap<MetricName, Alarm>;

  constructor(scope: Construct, id: string, props: MailAlarmsProps) {
    super(scope, id);
    const action = new SnsAction(props.topic);
    const alarms = new Map<MetricName, Alarm>();
    for (const def of MAIL_ALARMS) {
      const alarm = new Alarm(this, def.metric, {
        alarmDescription: `${props.prefix}: ${def.description}`,
        metric: new Metric({
          namespace: metricsNamespace(props.serviceName, props.stage),
          metricName: def.metric,
          dimensionsMap: { service: props.serviceName },
          period: def.period,
          statistic: 'Sum',
        }),
        threshold: def.threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: def.datapoints,
        datapointsToAlarm: def.datapoints,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarms.set(def.metric, alarm);
    }
    this.alarms = alarms;
  }
}
