import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  TextWidget,
  TreatMissingData,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ENRICHMENT_KINDS, ENRICHMENT_OUTCOMES, JOB_OUTCOMES, JOB_TIERS, METRICS, SEARCH_TIERS, SWEPT_TABLES, metricsNamespace, type MetricName } from '../../shared/core/metrics.js';
import { QUEUE_LIST, queueName } from '../../shared/catalog/queues.js';
import { RATE_ALARMS, rateExpression } from './mail-alarms.js';

export interface OperationsProps {
  readonly prefix: string;
  readonly stage: string;
  readonly serviceName: string;
  readonly topic: ITopic;
  /** The public API (public and console routes) and the web app's API. */
  readonly publicApi: RestApi;
  readonly appApi: RestApi;
}

/** The dashboard's name: one per stage. */
export const dashboardName = (prefix: string) => `${prefix}-operations`;

/** Its sections, in order: each a row of widgets (test/infra/stack.test.ts reads the titles). */
export const DASHBOARD_TITLES = {
  apis: ['Public API: requests and errors', 'Public API: latency (ms)', 'Web-app API: requests and errors', 'Web-app API: latency (ms)'],
  queues: ['Queue depth (messages visible)', 'Oldest message age (s)', 'Dead-letter queues (messages)', 'Wait before a worker took a message (queue_age p90, s)'],
  jobs: ['Jobs ended, by outcome', 'Job latency p90, acceptance to end (ms)', 'Searches and leads, by tier', 'Lost work ended by the sweeper, dead letters'],
  outreach: ['Sends and what came back', 'Bounce and complaint rates (% of the day’s sends)', 'Drafts', 'Webhook deliveries'],
  credits: ['Credits charged and released', 'Enrichments by kind and outcome', 'Inbound mail'],
} as const;

/**
 * The stage's operations view (docs/operating.md "Dashboard" and "Alarms"): a CloudWatch dashboard of traffic,
 * errors and latency per API, the queues (depth, age, dead letters), jobs (outcomes, latency, searches, lost work),
 * outreach (sends, bounce and complaint rates, drafts, webhooks) and money (credits, enrichments), and the alarm on
 * jobs the sweeper ended as lost. The service's own metrics come from shared/core/metrics.ts (namespace
 * `<service>/<stage>`, dimension `service`); the others are API Gateway's and SQS's. On the twin the same metrics
 * are summed by `GET /api/console/v1/metrics/`; in AWS this dashboard is that view.
 */
export class Operations extends Construct {
  readonly dashboard: Dashboard;
  readonly lostJobsAlarm: Alarm;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const namespace = metricsNamespace(props.serviceName, props.stage);
    const own = (metricName: MetricName, opts: { dims?: Record<string, string>; statistic?: string; label?: string; period?: Duration } = {}) =>
      new Metric({
        namespace,
        metricName,
        dimensionsMap: { service: props.serviceName, ...opts.dims },
        statistic: opts.statistic ?? 'Sum',
        period: opts.period ?? Duration.minutes(5),
        label: opts.label ?? metricName,
      });
    const sqs = (metricName: string, queue: string, label: string, statistic = 'Maximum') =>
      new Metric({ namespace: 'AWS/SQS', metricName, dimensionsMap: { QueueName: queue }, statistic, period: Duration.minutes(5), label });
    const graph = (title: string, left: IMetric[], opts: { right?: IMetric[]; width?: number; leftAnnotations?: { value: number; label: string }[] } = {}): IWidget =>
      new GraphWidget({ title, left, right: opts.right, width: opts.width ?? 6, height: 6, leftAnnotations: opts.leftAnnotations });

    const apiWidgets = ([[props.publicApi, 'Public API'], [props.appApi, 'Web-app API']] as const).flatMap(([api, name], i) => [
      graph(i === 0 ? DASHBOARD_TITLES.apis[0] : DASHBOARD_TITLES.apis[2], [
        api.metricCount({ statistic: 'Sum', label: 'requests' }),
        api.metricClientError({ statistic: 'Sum', label: '4xx' }),
        api.metricServerError({ statistic: 'Sum', label: '5xx' }),
      ]),
      graph(i === 0 ? DASHBOARD_TITLES.apis[1] : DASHBOARD_TITLES.apis[3], [
        api.metricLatency({ statistic: 'p50', label: `${name} p50` }),
        api.metricLatency({ statistic: 'p90', label: `${name} p90` }),
        api.metricLatency({ statistic: 'p99', label: `${name} p99` }),
        api.metricIntegrationLatency({ statistic: 'p90', label: 'integration p90' }),
      ]),
    ]);

    const queueWidgets = [
      graph(DASHBOARD_TITLES.queues[0], QUEUE_LIST.map((q) => sqs('ApproximateNumberOfMessagesVisible', queueName(props.prefix, q.key), q.key))),
      graph(DASHBOARD_TITLES.queues[1], QUEUE_LIST.map((q) => sqs('ApproximateAgeOfOldestMessage', queueName(props.prefix, q.key), q.key))),
      graph(DASHBOARD_TITLES.queues[2], QUEUE_LIST.map((q) => sqs('ApproximateNumberOfMessagesVisible', queueName(props.prefix, q.key, true), `${q.key}-dlq`))),
      graph(DASHBOARD_TITLES.queues[3], QUEUE_LIST.map((q) => own('queue_age', { dims: { queue: q.key }, statistic: 'p90', label: q.key }))),
    ];

    const jobWidgets = [
      graph(DASHBOARD_TITLES.jobs[0], JOB_OUTCOMES.map((outcome) => own('jobs_ended', { dims: { outcome }, label: outcome }))),
      graph(DASHBOARD_TITLES.jobs[1], JOB_TIERS.map((tier) => own('job_latency', { dims: { tier }, statistic: 'p90', label: tier }))),
      graph(
        DASHBOARD_TITLES.jobs[2],
        SEARCH_TIERS.map((tier) => own('searches', { dims: { tier }, label: `${tier} searches` })),
        { right: SEARCH_TIERS.map((tier) => own('leads', { dims: { tier }, label: `${tier} leads` })) },
      ),
      graph(DASHBOARD_TITLES.jobs[3], [...SWEPT_TABLES.map((table) => own('lost_work_ended', { dims: { table }, label: `lost ${table}` })), ...QUEUE_LIST.map((q) => own('dead_letters', { dims: { queue: q.key }, label: `dead ${q.key}` }))]),
    ];

    const daily = (metricName: MetricName) => own(metricName, { period: Duration.days(1) });
    const outreachWidgets = [
      graph(DASHBOARD_TITLES.outreach[0], (['sends', 'bounces_hard', 'bounces_soft', 'complaints', 'replies', 'unsubscribes'] as const).map((name) => own(name, { period: Duration.hours(1) }))),
      new GraphWidget({
        title: DASHBOARD_TITLES.outreach[1],
        width: 6,
        height: 6,
        left: RATE_ALARMS.map((def) => rateExpression(def, daily)),
        leftAnnotations: RATE_ALARMS.map((def) => ({ value: def.thresholdPercent, label: `${def.metric} alarm` })),
      }),
      graph(DASHBOARD_TITLES.outreach[2], [own('drafts'), own('drafts_failed')]),
      graph(DASHBOARD_TITLES.outreach[3], [own('webhook_attempts'), own('webhook_failures')]),
    ];

    const creditWidgets = [
      graph(DASHBOARD_TITLES.credits[0], [own('credits_charged', { period: Duration.hours(1) }), own('credits_released', { period: Duration.hours(1) })], { width: 8 }),
      graph(
        DASHBOARD_TITLES.credits[1],
        ENRICHMENT_KINDS.flatMap((kind) => ENRICHMENT_OUTCOMES.map((outcome) => own('enrichments', { dims: { kind, outcome }, label: `${kind} ${outcome}` }))),
        { width: 8 },
      ),
      graph(DASHBOARD_TITLES.credits[2], [own('mailbox_polls_failed'), own('messages_unprocessable'), own('inbound_failed')], { width: 8 }),
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: dashboardName(props.prefix),
      defaultInterval: Duration.hours(24),
      widgets: [
        [
          new TextWidget({
            markdown: `# ${props.prefix}: operations\nTraffic, errors and latency per API; the queues; jobs; outreach; credits. The service's own metrics are \`${namespace}\` (shared/core/metrics.ts lists each: ${Object.keys(METRICS).length}); each alarm and what to do when it fires: docs/operating.md.`,
            width: 24,
            height: 2,
          }),
        ],
        apiWidgets,
        queueWidgets,
        jobWidgets,
        outreachWidgets,
        creditWidgets,
      ],
    });

    // A job the sweeper had to end (its run lost past its deadline): failed, its credits released, its webhook sent.
    this.lostJobsAlarm = new Alarm(this, 'LostJobs', {
      alarmDescription: `${props.prefix}: the sweeper ended a job whose run was lost in the last hour (failed, its credits released)`,
      metric: new Metric({ namespace, metricName: 'lost_work_ended', dimensionsMap: { service: props.serviceName, table: 'jobs' }, statistic: 'Sum', period: Duration.hours(1) }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.lostJobsAlarm.addAlarmAction(new SnsAction(props.topic));
  }
}
