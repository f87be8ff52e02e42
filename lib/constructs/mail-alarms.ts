import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
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

/**
 * A deliverability rate over a UTC day, by metric math on the functions' own counts: `metric` against `sends`, in
 * percent, above `thresholdPercent`. A day without sends is 0 %, never a breach. At a few sends a day one event is a
 * large share, on purpose: a hard bounce or a complaint at low volume is worth a look before the volume grows.
 */
export interface RateAlarmDef {
  readonly id: string;
  readonly metric: 'bounces_hard' | 'complaints';
  readonly thresholdPercent: number;
  readonly description: string;
}

export const RATE_ALARMS: readonly RateAlarmDef[] = [
  {
    // SES reviews an account whose bounce rate passes 5 % (and may pause its sending at 10 %): the service's own
    // alarm is at 2 %, early enough to act. Hard bounces only, as SES counts them.
    id: 'BounceRate',
    metric: 'bounces_hard',
    thresholdPercent: 2,
    description: 'more than 2% of the day’s sends bounced permanently (SES reviews an account at 5%)',
  },
  {
    // SES reviews an account whose complaint rate passes 0.1 % (and may pause it at 0.5 %).
    id: 'ComplaintRate',
    metric: 'complaints',
    thresholdPercent: 0.1,
    description: 'more than 0.1% of the day’s sends were reported as spam (SES reviews an account at 0.1%)',
  },
];

/** A rate alarm's value: `def.metric` per 100 of the day's `sends` (0 on a day without sends), from `daily` metrics. */
export function rateExpression(def: RateAlarmDef, daily: (name: 'sends' | RateAlarmDef['metric']) => Metric): MathExpression {
  return new MathExpression({
    expression: `IF(FILL(sends, 0) > 0, 100 * FILL(${def.metric}, 0) / FILL(sends, 0), 0)`,
    usingMetrics: { sends: daily('sends'), [def.metric]: daily(def.metric) },
    label: `${def.metric} per 100 sends`,
    period: Duration.days(1),
  });
}

export class MailAlarms extends Construct {
  readonly alarms: ReadonlyMap<MetricName, Alarm>;
  /** The deliverability-rate alarms, by id (RATE_ALARMS). */
  readonly rateAlarms: ReadonlyMap<string, Alarm>;

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

    const daily = (metricName: MetricName) =>
      new Metric({ namespace: metricsNamespace(props.serviceName, props.stage), metricName, dimensionsMap: { service: props.serviceName }, period: Duration.days(1), statistic: 'Sum' });
    const rateAlarms = new Map<string, Alarm>();
    for (const def of RATE_ALARMS) {
      const alarm = new Alarm(this, def.id, {
        alarmDescription: `${props.prefix}: ${def.description}`,
        metric: rateExpression(def, daily),
        threshold: def.thresholdPercent,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      rateAlarms.set(def.id, alarm);
    }
    this.rateAlarms = rateAlarms;
  }
}
