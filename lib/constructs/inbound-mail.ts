import { INBOUND_MAIL } from '../../shared/catalog/functions.js';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { TableKey } from '../../shared/catalog/tables.js';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { S3EventSourceV2 } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EventType, type Bucket } from 'aws-cdk-lib/aws-s3';
import { ReceiptRuleSet } from 'aws-cdk-lib/aws-ses';
import { S3 } from 'aws-cdk-lib/aws-ses-actions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceFunction, nagFinding, type SchedulerBinding } from './service-function.js';

/**
 * Replies, bounces and auto-replies reach the service through SES receiving: a receipt rule stores each
 * message in the inbound bucket under `inbound/`, and a worker matches it to the email it answers.
 * Activating the rule set and pointing the sending domains' MX records at SES are account-level steps
 * (see docs/deploying.md): CloudFormation cannot make a rule set active.
 */
export interface InboundMailProps {
  readonly bucket: Bucket;
  /** The service's tables: the function is bound to those its catalogue entry names (INBOUND_MAIL). */
  readonly tables: Readonly<Record<TableKey, ITable>>;
  readonly stage: string;
  readonly serviceName: string;
  /** Recipient domains or addresses the rule accepts (all verified identities when empty). */
  readonly recipients?: string[];
  /** A reply or bounce that stops a sequence deletes the schedules of its unsent steps. */
  readonly scheduler: SchedulerBinding;
  /** Where an S3 notification lands after Lambda's asynchronous retries fail, instead of being dropped. */
  readonly deadLetterQueue: IQueue;
}

export const INBOUND_PREFIX = 'inbound/';
export const INBOUND_MAIL_MODULE = INBOUND_MAIL.module;

export class InboundMail extends Construct {
  readonly fn: ServiceFunction;
  readonly ruleSet: ReceiptRuleSet;
  constructor(scope: Construct, id: string, props: InboundMailProps) {
    super(scope, id);
    // SES may write only its own account's messages into the prefix.
    props.bucket.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [props.bucket.arnForObjects(`${INBOUND_PREFIX}*`)],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    this.ruleSet = new ReceiptRuleSet(this, 'RuleSet', {
      rules: [{ recipients: props.recipients, scanEnabled: true, actions: [new S3({ bucket: props.bucket, objectKeyPrefix: INBOUND_PREFIX })] }],
    });
    this.fn = new ServiceFunction(this, 'Fn', {
      module: INBOUND_MAIL_MODULE,
      stage: props.stage,
      serviceName: props.serviceName,
      description: 'Match and classify inbound mail stored by SES receiving',
      timeout: Duration.seconds(30),
      deadLetterQueue: props.deadLetterQueue,
    });
    // The catalogue's grants, as on the twin: the outreach table (matching, classification), mail_evidence (a hard
    // bounce marks the address invalid for every account), the accounts table read (sending accounts), and the
    // Scheduler (a stopped sequence's unsent steps).
    ServiceFunction.applyBindings(this.fn, INBOUND_MAIL.bindings, { tables: props.tables, scheduler: props.scheduler });
    // Beside the catalogue: the S3 notification's object, read only (SES writes it; nothing here writes the bucket).
    const objects = props.bucket.arnForObjects(`${INBOUND_PREFIX}*`);
    this.fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:GetObject'], resources: [objects] }));
    Validations.of(this.fn).acknowledge({
      id: nagFinding(this.fn, 'AwsSolutions-IAM5', 'Resource', objects),
      reason: 'SES names each stored message itself; the worker may read only objects under the inbound prefix.',
    });
    this.fn.addEventSource(new S3EventSourceV2(props.bucket, { events: [EventType.OBJECT_CREATED], filters: [{ prefix: INBOUND_PREFIX }] }));
  }
}
