import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Effect, ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AccountRecovery, StringAttribute, UserPool, type UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { USER_POOL } from '../shared/catalog/user-pool.js';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DirectoryImport } from './constructs/directory-import.js';
import { SearchCollection } from './constructs/search-collection.js';
import { InboundMail } from './constructs/inbound-mail.js';
import { MailEvents } from './constructs/mail-events.js';
import { MailAlarms } from './constructs/mail-alarms.js';
import { directoryBucketArnExport, nagFinding } from './constructs/service-function.js';
import { DEAD_LETTERS, QUEUE_LIST, queueName, type QueueKey } from '../shared/catalog/queues.js';
import { TABLE_LIST, type TableKey } from '../shared/catalog/tables.js';
import { queueAgeDeadlineSeconds } from '../shared/catalog/deadlines.js';

export interface StatefulStackProps extends StackProps {
  /** Resource-name prefix, `<service>-<stage>`. */
  readonly prefix: string;
  readonly stage?: string;
  readonly serviceName?: string;
  /** Recipient domains/addresses SES receiving accepts for replies (all verified identities when absent). */
  readonly inboundRecipients?: string[];
  /** `opensearch`: an OpenSearch Serverless collection for people search, loaded by the directory import. */
  readonly searchEngine?: 'memory' | 'opensearch';
  /** `host:port` of the SMTP relay: with it, and no `smtpRelaySecret`, the stack creates the relay's credentials secret. */
  readonly smtpRelay?: string;
  /** Name or complete ARN of an existing secret `{"username","password"}` holding the relay's credentials. */
  readonly smtpRelaySecret?: string;
}

/**
 * Lambda's guidance for an SQS event source: the queue's visibility timeout at least six times the function's
 * timeout, so a batch still being processed (or retried after a throttle) is not delivered again. Lambda refuses
 * to create the event source at all when the visibility timeout is below the function timeout.
 */
export const SQS_VISIBILITY_PER_FUNCTION_TIMEOUT = 6;

/** Every dead-letter queue is consumed by the dead-letter consumer (DEAD_LETTERS): its visibility follows that function's timeout. */
export const DEAD_LETTER_QUEUE_VISIBILITY_SECONDS = SQS_VISIBILITY_PER_FUNCTION_TIMEOUT * DEAD_LETTERS.timeoutSeconds;

/**
 * The import bucket's object holding the directory JSONL. Plain, not gzipped: the import reads it in byte
 * ranges, and a gzip stream cannot be entered in the middle.
 */
export const DIRECTORY_OBJECT_KEY = 'directory/directory.jsonl';

/**
 * Everything that holds data and must outlive a redeploy of the functions: tables, queues, the secret-box
 * key, the Scheduler group and its delivery role, the directory-import bucket. The API stack receives these
 * as props (serverless-clean-code's stateful/stateless split), so the stateless side can be torn down freely.
 */
export class StatefulStack extends Stack {
  readonly tables: Readonly<Record<TableKey, Table>>;
  readonly queues: Readonly<Record<QueueKey, Queue>>;
  readonly deadLetterQueues: Readonly<Record<QueueKey, Queue>>;
  /** Key of the secret box that encrypts webhook signing secrets at rest: 64 hex characters (32 bytes). */
  readonly secretBoxKey: Secret;
  /**
   * OAuth clients of the mailbox providers, set by the operator after the first deploy (docs/outreach.md "Connecting
   * mailboxes"): JSON `{google: {client_id, client_secret}, microsoft: {client_id, client_secret, tenant?}}`.
   */
  readonly mailboxProviders: Secret;
  readonly scheduleGroup: ScheduleGroup;
  /** Assumed by EventBridge Scheduler to deliver due schedules; may only send to the timers queue and its DLQ. */
  readonly schedulerRole: Role;
  readonly directoryImportBucket: Bucket;
  /** Raw inbound mail written by SES receiving (replies, bounces, auto-replies). */
  readonly inboundMailBucket: Bucket;
  readonly accessLogsBucket: Bucket;
  /** Where every alarm of the service goes (function errors, dead letters, throttles); subscribe operators to it. */
  readonly alarmTopic: Topic;
  /** The SES configuration set every send names, and the rule taking its bounces and complaints to the mail-events queue. */
  readonly mailEvents: MailEvents;
  /** SES receiving into the inbound bucket, and the function that matches each stored message. */
  readonly inboundMail: InboundMail;
  /** The S3-triggered planner of a directory import. */
  readonly directoryImport: DirectoryImport;
  /** The alarms on the inbound-mail metrics the functions count (shared/core/metrics.ts). */
  readonly mailAlarms: MailAlarms;
  /** The OpenSearch collection people search reads, with `-c searchEngine=opensearch` only. */
  readonly searchCollection?: SearchCollection;
  /** The web app's users: added by operators (console POST accounts/{id}/users/), each tied to one account. */
  readonly userPool: UserPool;
  /** The web app's client of the pool: USER_PASSWORD_AUTH and SRP, no secret (a browser cannot keep one). */
  readonly userPoolClient: UserPoolClient;
  /**
   * Asynchronous deliveries that failed every retry: S3-notified invocations of the inbound-mail and import
   * functions, and the SES-events rule's deliveries to its queue. Kept 14 days for an operator, with an alarm.
   */
  readonly asyncFailures: Queue;
  /**
   * The SMTP relay's credentials, JSON `{"username","password"}` (with `smtpRelay` only): created here and set by
   * the operator after the first deploy (docs/deploying.md), or an existing secret named by `smtpRelaySecret`.
   */
  readonly smtpRelaySecret?: ISecret;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { prefix } = props;

    const tables = {} as Record<TableKey, Table>;
    for (const def of TABLE_LIST) {
      // No fixed tableName: CloudFormation names each table, so after a destroy (the retained tables stay, with
      // their data) a new deploy creates fresh tables instead of failing on names that are still taken.
      const table = new Table(this, `${pascal(def.key)}Table`, {
        partitionKey: { name: 'pk', type: AttributeType.STRING },
        sortKey: { name: 'sk', type: AttributeType.STRING },
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      for (const gsi of def.gsis) {
        table.addGlobalSecondaryIndex({
          indexName: gsi.name,
          partitionKey: { name: gsi.pk, type: AttributeType.STRING },
          sortKey: { name: gsi.sk, type: AttributeType.STRING },
          ...(gsi.keysOnly ? { projectionType: ProjectionType.KEYS_ONLY } : gsi.include ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: gsi.include } : { projectionType: ProjectionType.ALL }),
        });
      }
      tables[def.key] = table;
    }
    this.tables = tables;

    // CloudWatch can publish to an encrypted topic only with a customer-managed key whose policy lets it use the
    // key (the AWS-managed SNS key's policy does not).
    const alarmKey = new Key(this, 'AlarmTopicKey', { description: `${prefix}: encrypts the alarm topic`, enableKeyRotation: true, removalPolicy: RemovalPolicy.DESTROY });
    alarmKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: `${prefix} alarms`, masterKey: alarmKey, enforceSSL: true });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'Subscribe operators to every alarm of the service' });
    const alarmAction = new SnsAction(this.alarmTopic);

    const queues = {} as Record<QueueKey, Queue>;
    const dlqs = {} as Record<QueueKey, Queue>;
    for (const def of QUEUE_LIST) {
      const dlq = new Queue(this, `${pascal(def.key)}Dlq`, {
        queueName: queueName(prefix, def.key, true),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        // The dead-letter consumer reads every DLQ: Lambda refuses an event source whose queue hides a message for
        // less than the function's timeout.
        visibilityTimeout: Duration.seconds(DEAD_LETTER_QUEUE_VISIBILITY_SECONDS),
      });
      Validations.of(dlq).acknowledge({
        id: 'Serverless-SQSRedrivePolicy',
        reason: 'This is a dead-letter queue: the dead-letter consumer ends each message’s workflow, and a message it cannot end stays here under the depth alarm.',
      });
      queues[def.key] = new Queue(this, `${pascal(def.key)}Queue`, {
        queueName: queueName(prefix, def.key),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
      });
      dlqs[def.key] = dlq;
      new Alarm(this, `${pascal(def.key)}DlqDepth`, {
        alarmDescription: `${prefix}: messages of the ${def.key} queue gave up and wait in its dead-letter queue`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(alarmAction);
      // The oldest message older than the queue could keep it by retrying (queueAgeDeadlineSeconds): it waited.
      new Alarm(this, `${pascal(def.key)}QueueAge`, {
        alarmDescription: `${prefix}: the oldest message of the ${def.key} queue has waited longer than its deadline (${queueAgeDeadlineSeconds(def.key)} s): its worker is not keeping up or not running`,
        metric: queues[def.key].metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: queueAgeDeadlineSeconds(def.key),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(alarmAction);
    }
    this.queues = queues;
    this.deadLetterQueues = dlqs;

    this.asyncFailures = new Queue(this, 'AsyncFailuresDlq', {
      queueName: `${prefix}-async-failures-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.asyncFailures).acknowledge(
      {
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is the dead-letter target of Lambda asynchronous invocations and of an EventBridge rule target, which cdk-nag does not recognise as a DLQ use.',
      },
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason: 'This is a dead-letter queue for an operator to inspect under its depth alarm; nothing consumes it automatically.',
      },
    );
    new Alarm(this, 'AsyncFailuresDlqDepth', {
      alarmDescription: `${prefix}: an S3 notification or SES event could not be delivered to the service and waits in the async-failures queue`,
      metric: this.asyncFailures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(alarmAction);

    this.mailEvents = new MailEvents(this, 'SesEvents', { prefix, queue: queues['mail-events'], deadLetterQueue: this.asyncFailures });

    this.secretBoxKey = new Secret(this, 'SecretBoxKey', {
      description: 'Key of the secret box that encrypts webhook signing secrets (64 hex characters = 32 bytes)',
      generateSecretString: {
        passwordLength: 64,
        excludeUppercase: true,
        excludePunctuation: true,
        includeSpace: false,
        excludeCharacters: 'ghijklmnopqrstuvwxyz',
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.secretBoxKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotating the secret-box key would make every stored webhook signing secret undecryptable; it is rotated by a planned re-encryption, not on a timer.',
    });

    this.mailboxProviders = new Secret(this, 'MailboxProviders', {
      description: 'OAuth client ids and secrets of the mailbox providers: {"google":{"client_id","client_secret"},"microsoft":{"client_id","client_secret","tenant"}}',
      // A placeholder names no provider, so connecting answers "not configured" until the operator sets the value.
      generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'placeholder' },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.mailboxProviders).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'OAuth client secrets are issued by Google and Microsoft; they are rotated in those consoles and pasted in, which no rotation Lambda can do.',
    });

    if (props.smtpRelaySecret) {
      const ref = props.smtpRelaySecret;
      this.smtpRelaySecret = ref.startsWith('arn:')
        ? Secret.fromSecretCompleteArn(this, 'SmtpRelayCredentials', ref)
        : Secret.fromSecretNameV2(this, 'SmtpRelayCredentials', ref);
    } else if (props.smtpRelay) {
      const created = new Secret(this, 'SmtpRelayCredentials', {
        description: `Credentials of the SMTP relay ${props.smtpRelay}: {"username","password"}; set by the operator after deploy`,
        // A placeholder names no user, so the relay is reached without authentication until the operator sets the value.
        generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'placeholder' },
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: 'The relay password is issued by the relay provider; it is rotated there and pasted in, which no rotation Lambda can do.',
      });
      this.smtpRelaySecret = created;
    }

    // Pending one-time schedules are work in flight, not records: the group goes with the stack, so its fixed
    // name is free again for the next deploy.
    this.scheduleGroup = new ScheduleGroup(this, 'ScheduleGroup', { scheduleGroupName: `${prefix}-schedules`, removalPolicy: RemovalPolicy.DESTROY });

    const timersQueue = queues.timers;
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      description: 'EventBridge Scheduler delivers due one-time schedules to the timers queue (undeliverable ones to its DLQ)',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          // Confused-deputy guard: only schedules of this account's group may use the role.
          StringEquals: { 'aws:SourceAccount': this.account },
          ArnEquals: { 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
        },
      }),
    });
    // Not queue.grantSendMessages(): that adds GetQueueAttributes/GetQueueUrl, which Scheduler never calls.
    // The queues use SSE-SQS, so no KMS permission is needed. Scheduler sends a timer it could not deliver to
    // the target's dead-letter queue with this same role, so the timers DLQ is the one other resource.
    this.schedulerRole.addToPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [timersQueue.queueArn, dlqs.timers.queueArn] }),
    );

    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // S3 server access logging delivers only to SSE-S3 buckets.
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.accessLogsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the server-access-log target bucket; logging it into itself would log its own log deliveries forever.',
    });

    this.directoryImportBucket = new Bucket(this, 'DirectoryImportBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'directory-import/',
      // Nothing here expires while it is current. An upload replaced by a newer one stays 30 days as a
      // noncurrent version (an import reads its own version by id, and finishes within hours). A search index
      // artifact is deleted by the finalize step two switches after it (finalize-import.ts); the rule only
      // expires the version that delete hid, after 7 days, and a lifecycle rule cannot tell the current
      // version's artifact from the others (they are distinct keys), so it never expires current objects.
      lifecycleRules: [
        { id: 'replaced-uploads', prefix: DIRECTORY_OBJECT_KEY, noncurrentVersionExpiration: Duration.days(30), abortIncompleteMultipartUploadAfter: Duration.days(7) },
        { id: 'deleted-artifacts', prefix: 'index/', noncurrentVersionExpiration: Duration.days(7), expiredObjectDeleteMarker: true },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.exportValue(this.directoryImportBucket.bucketArn, { name: directoryBucketArnExport(prefix) });

    // The S3 notification singleton CDK adds for the import trigger runs with the basic execution role.
    Validations.of(this).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM4', 'Policy', ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole').managedPolicyArn),
      reason: "CDK's bucket-notifications handler only writes its own logs with AWSLambdaBasicExecutionRole.",
    });
    this.inboundMailBucket = new Bucket(this, 'InboundMailBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'inbound-mail/',
      // Raw replies are personal data: kept long enough to re-process, not forever.
      lifecycleRules: [{ expiration: Duration.days(30) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const inbound = new InboundMail(this, 'InboundMail', {
      bucket: this.inboundMailBucket,
      tables: this.tables,
      stage: props.stage ?? 'dev',
      serviceName: props.serviceName ?? 'people-outreach',
      recipients: props.inboundRecipients,
      scheduler: { group: this.scheduleGroup, role: this.schedulerRole, timersQueue, timersDeadLetterQueue: dlqs.timers },
      deadLetterQueue: this.asyncFailures,
    });

    const directoryImport = new DirectoryImport(this, 'DirectoryImport', {
      bucket: this.directoryImportBucket,
      key: DIRECTORY_OBJECT_KEY,
      table: this.tables.directory,
      chunkQueue: queues['directory-import'],
      finalizeQueue: queues['directory-finalize'],
      stage: props.stage ?? 'dev',
      serviceName: props.serviceName ?? 'people-outreach',
      deadLetterQueue: this.asyncFailures,
    });
    inbound.fn.alarmOnErrors(this.alarmTopic);
    directoryImport.fn.alarmOnErrors(this.alarmTopic);
    this.inboundMail = inbound;
    this.directoryImport = directoryImport;
    this.mailAlarms = new MailAlarms(this, 'MailAlarms', { prefix, serviceName: props.serviceName ?? 'people-outreach', stage: props.stage ?? 'dev', topic: this.alarmTopic });
    if (props.searchEngine === 'opensearch') {
      this.searchCollection = new SearchCollection(this, 'SearchCollection', { stage: props.stage ?? 'dev' });
    }

    const { password } = USER_POOL;
    this.userPool = new UserPool(this, 'Users', {
      userPoolName: `${prefix}-users`,
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      passwordPolicy: { minLength: password.minLength, requireLowercase: password.lowercase, requireUppercase: password.uppercase, requireDigits: password.digits, requireSymbols: password.symbols },
      customAttributes: { [USER_POOL.accountAttribute]: new StringAttribute({ mutable: false, minLen: 1, maxLen: 64 }) },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.userPoolClient = this.userPool.addClient('WebApp', {
      userPoolClientName: `${prefix}-web-app`,
      authFlows: { userPassword: true, userSrp: true },
      generateSecret: false,
      preventUserExistenceErrors: true,
    });
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason: 'MFA is a per-customer onboarding decision (operators add every user with a strong password); the pool leaves it off until customers enrol authenticator apps.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason: 'Threat protection (advanced security) is a paid feature plan left to the deployment; self sign-up is off and operators create every user.',
      },
    );
    new CfnOutput(this, 'UserPoolId', { value: this.userPool.userPoolId, description: 'The web app\'s user pool' });
    new CfnOutput(this, 'UserPoolClientId', { value: this.userPoolClient.userPoolClientId, description: 'The web app\'s client of the user pool' });
  }
}

/** `outreach` → `Outreach`: construct ids from catalogue keys. */
export function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}
