import { CfnOutput, Duration, Fn, NestedStack, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  AwsIntegration,
  CognitoUserPoolsAuthorizer,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type Method,
  type MethodDeploymentOptions,
  type StageOptions,
  type ThrottlingPerMethod,
} from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, ManagedPolicy, Policy, PolicyStatement, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUE_LIST, type QueueKey } from '../shared/catalog/queues.js';
import { API_KEY_AUTHORIZER } from '../shared/catalog/authorizer.js';
import { CONSOLE_BASE, ROUTES, ROUTE_LIMITS, SOURCE_RATE_LIMIT_LIST, STAGE_METHOD_CEILING, ratePerSecond, routeBindings, type RouteDef } from '../shared/catalog/routes.js';
import { TABLES, type TableKey } from '../shared/catalog/tables.js';
import { Housekeeping } from './constructs/housekeeping.js';
import { mailConfigurationSetName } from './constructs/mail-events.js';
import { MailboxPoll } from './constructs/mailbox-poll.js';
import { WebHosting } from './constructs/web-hosting.js';
import { SourceRateLimits } from './constructs/source-rate-limits.js';
import { Operations } from './constructs/operations.js';
import { ServiceFunction, directoryBucketArnExport, eventSourceScaling, grantBedrockInvoke, nagFinding, type BindingResources } from './constructs/service-function.js';
import { executionLogGroup } from './constructs/log-retention.js';
import type { SearchCollection } from './constructs/search-collection.js';
import { DIRECTORY_OBJECT_KEY, pascal } from './stateful-stack.js';

export interface ApiStackProps extends StackProps {
  /** Resource-name prefix, `<service>-<stage>`. */
  readonly prefix: string;
  /** API Gateway stage name and `SERVICE_STAGE`. */
  readonly stage: string;
  /** `POWERTOOLS_SERVICE_NAME` of every function. */
  readonly serviceName: string;
  readonly logLevel?: string;
  // Stateful resources, handed over from the StatefulStack.
  readonly tables: Readonly<Record<TableKey, ITable>>;
  readonly queues: Readonly<Record<QueueKey, IQueue>>;
  /** Each queue's dead-letter queue: the dead-letter consumer reads them all. */
  readonly deadLetterQueues: Readonly<Record<QueueKey, IQueue>>;
  readonly secretBoxKey: ISecret;
  /** OAuth clients of the mailbox providers (Secrets Manager). */
  readonly mailboxProviders: ISecret;
  readonly directoryBucket: IBucket;
  /** With `-c searchEngine=opensearch`: the search worker reads the collection instead of loading the index. */
  readonly searchCollection?: SearchCollection;
  /** Draft with Amazon Bedrock (Converse API) using this model id instead of the built-in composer. */
  readonly bedrockModelId?: string;
  /**
   * Query understanding and evidence judgement by this Amazon Bedrock model (foundation model or inference
   * profile id) behind the deterministic engine's guards, for the functions bound to `languageModel`.
   */
  readonly languageModelId?: string;
  /** `host:port` of the SMTP relay that `smtp` sending accounts go out through. */
  readonly smtpRelay?: string;
  /** The relay's credentials, JSON `{"username","password"}` (StatefulStack.smtpRelaySecret); read by the sending worker only. */
  readonly smtpRelaySecret?: ISecret;
  readonly testInboxAddress?: string;
  readonly testEmailBanner?: string;
  readonly scheduleGroup: IScheduleGroup;
  readonly schedulerRole: IRole;
  /** Alarm topic of the stateful stack: one error alarm per function goes there. */
  readonly alarmTopic: ITopic;
  /** SES identities (domains or addresses) the sending worker may send from (context `sesIdentities`). */
  readonly sesIdentities?: readonly string[];
  /** The web app's user pool: its authorizer guards `user` routes; the console adds users to it. */
  readonly userPool: IUserPool;
  /** The web app's client of the user pool, named in the app's config.json. */
  readonly userPoolClientId: string;
  /** The route table to build; the whole catalogue unless a test projects future routes. */
  readonly routes?: readonly RouteDef[];
}

/** The usage plan's name: deterministic, so the console functions can find it without a dependency cycle. */
export function usagePlanName(prefix: string): string {
  return `${prefix}-public-api`;
}

/** `GET /api/console/v1/accounts/{id}/charges/` → `GetApiConsoleV1AccountsByIdCharges`. */
export function routeConstructId(route: Pick<RouteDef, 'method' | 'path'>): string {
  const segments = route.path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') && seg.endsWith('}') ? `By${pascal(seg.slice(1, -1))}` : pascal(seg)));
  return pascal(route.method.toLowerCase()) + segments.join('');
}

/**
 * API Gateway resource path of a route. docs/decisions.md#conventions paths end with `/`, but an API Gateway resource cannot have an
 * empty path part, so `/a/b/` becomes the resource `/a/b`. API Gateway then serves that resource at both
 * `/a/b/` and `/a/b`: in AWS the slash-less form is answered too, where docs/decisions.md#conventions says it is not registered
 * (the local gateway answers it with 403 Missing Authentication Token). Refusing it at the edge would take a
 * CloudFront function in front of the API (403 for any path not ending in `/`), or a check of the raw
 * `event.path` in the shared HTTP middleware — not a `{proxy+}` catch-all, which would hide unknown paths too.
 */
export function resourcePath(routePath: string): string {
  const trimmed = routePath.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** A privacy request's confirm: an erasure deletes the person's search documents (shared/privacy/directory-erasure.ts). */
export const PRIVACY_CONFIRM_MODULE = 'functions/privacy/confirm.ts';

/** The privacy request that mails its verification link (shared/privacy-requests/verification-mail.ts). */
export const PRIVACY_REQUEST_MODULE = 'functions/privacy/create.ts';

/** The start of a mailbox connection (web app and console) and its public callback. */
export const MAILBOX_CONNECT_MODULES = ['functions/app/connect-sending-account.ts', 'functions/console/connect-sending-account.ts', 'functions/oauth/callback.ts'];

/**
 * Bounded contexts, one nested stack each. CloudFormation allows 500 resources per stack (template); a route
 * costs 6 resources (function, role, policy, log group, invoke permission, error alarm) beside its method, so
 * one stack holding every route of docs/decisions.md would pass that limit. Each nested stack has its own 500, and
 * counts as one resource in the parent. Functions keep their own role: grouping changes where a function
 * lives, never what it may do.
 */
const CONTEXT_OF_AREA: Record<string, string> = {
  search: 'Search',
  enrich: 'Search',
  'deep-search': 'Search',
  'agentic-search': 'Search',
  emails: 'Outreach',
  'email-accounts': 'Outreach',
  tracking: 'Outreach',
  sequences: 'Outreach',
  'test-emails': 'Outreach',
  console: 'Console',
  // The API-key authorizer sits with the console functions that create and revoke the keys it checks.
  authorizer: 'Console',
  app: 'App',
  openapi: 'App',
  // The public OAuth callback, beside the console's start of the same flow.
  oauth: 'Console',
  // The people's privacy requests (no key), beside the recipient links every outreach email carries.
  privacy: 'Outreach',
};
export const WORKERS_CONTEXT = 'Workers';

/** `functions/<area>/…` → the nested stack the route's function lives in. */
export function boundedContextOf(module: string): string {
  const area = module.split('/')[1] ?? '';
  const context = CONTEXT_OF_AREA[area];
  if (!context) throw new Error(`No bounded context for ${module}: add its area "${area}" to CONTEXT_OF_AREA`);
  return context;
}

/** The method ARN a route's function may be invoked from, any stage: `…/*\/GET/api/public/v1/search/*`. */
function methodArnPath(route: RouteDef): string {
  return resourcePath(route.path).replace(/\{[^}]+\}/g, '*');
}

/** The stage's default method throttle, from the route catalogue (the local gateway reads it too). */
export { STAGE_METHOD_CEILING };

/** Stage-wide throttles of routes no API key identifies (usage plans only throttle per key). */
/** The stage settings both REST APIs share: traced, metered, errors logged, one access log, per-route throttles. */
function stageOptions(stageName: string, accessLogs: LogGroup, routes: readonly RouteDef[]): StageOptions {
  return {
    stageName,
    throttlingRateLimit: STAGE_METHOD_CEILING.rateLimit,
    throttlingBurstLimit: STAGE_METHOD_CEILING.burstLimit,
    tracingEnabled: true,
    metricsEnabled: true,
    loggingLevel: MethodLoggingLevel.ERROR,
    // Request/response bodies carry personal data and keys: never written to execution logs.
    dataTraceEnabled: false,
    accessLogDestination: new LogGroupLogDestination(accessLogs),
    accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
    methodOptions: stageThrottles(routes),
  };
}

function stageThrottles(routes: readonly RouteDef[]): Record<string, MethodDeploymentOptions> {
  const options: Record<string, MethodDeploymentOptions> = {};
  for (const route of routes) {
    // A handler_key route's own throttle is per key, counted by its handler; the gateway holds the ceiling.
    const throttle = route.auth === 'handler_key' ? route.edgeThrottle : route.throttle;
    if (route.auth === 'api_key' || !throttle) continue;
    // A method's settings replace the stage-wide `/*/*` ones rather than adding to them: repeat logging and metrics.
    options[`${resourcePath(route.path)}/${route.method}`] = {
      throttlingRateLimit: ratePerSecond(throttle),
      throttlingBurstLimit: throttle.burst,
      loggingLevel: MethodLoggingLevel.ERROR,
      metricsEnabled: true,
      dataTraceEnabled: false,
    };
  }
  return options;
}

/**
 * The stateless side: one Lambda per route of the route table behind a REST API (API-key authorizer + usage-plan
 * throttles for the public API, IAM for the console API), one worker Lambda per queue of the queue catalogue.
 * The API, its resources, methods, stage and usage plan live here; the functions live in one nested stack per
 * bounded context.
 */
export class ApiStack extends Stack {
  readonly api: RestApi;
  /**
   * The web app's API (`user` routes), apart from `api` because gateway responses are per API: here a missing
   * or refused token is Cognito's 401 {"message":"Unauthorized"}, where the public API answers a missing key
   * with 403 {"message":"Forbidden"}.
   */
  readonly appApi: RestApi;
  /** Verifies the web app's Cognito ID tokens on every `user` route. */
  readonly userAuthorizer: CognitoUserPoolsAuthorizer;
  readonly routeFunctions: ReadonlyMap<RouteDef, ServiceFunction>;
  readonly workerFunctions: Readonly<Record<QueueKey, ServiceFunction>>;
  /** The dead-letter consumer and the sweeper with its schedule, beside the workers. */
  readonly housekeeping: Housekeeping;
  /** The mailbox poller and its schedule. */
  readonly mailboxPoll: MailboxPoll;
  readonly contextStacks: ReadonlyMap<string, NestedStack>;
  /** Grants that name the usage plan by id, kept out of the functions' own stacks (see ApiKeysBinding). */
  readonly usagePlanGrants: ReadonlyMap<ServiceFunction, Policy>;
  /** Attach to an operator's role or user to call the console API with SigV4. */
  readonly consoleOperatorPolicy: ManagedPolicy;
  /** The REQUEST authorizer of every API-key route, and its function. */
  readonly apiKeyAuthorizer: { readonly authorizer: RequestAuthorizer; readonly fn: ServiceFunction };
  /** The customer web app: bucket, distribution (with `/api/app/*` to the AppApi) and deployments. */
  readonly webHosting: WebHosting;
  /** The public API stage's web ACL: per-source rate limits of the routes without a key and of the API-key routes. */
  readonly sourceRateLimits: SourceRateLimits;
  /** The stage's CloudWatch dashboard and the lost-jobs alarm. */
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { prefix, stage } = props;
    const routes = props.routes ?? ROUTES;

    const resources: BindingResources = {
      tables: props.tables,
      queues: props.queues,
      scheduler: { group: props.scheduleGroup, role: props.schedulerRole, timersQueue: props.queues.timers, timersDeadLetterQueue: props.deadLetterQueues.timers },
      secretBox: props.secretBoxKey,
      mailboxProviders: props.mailboxProviders,
      apiKeys: { usagePlanName: usagePlanName(prefix) },
      directory: { bucket: props.directoryBucket, key: DIRECTORY_OBJECT_KEY, importedBucketArn: Fn.importValue(directoryBucketArnExport(prefix)) },
      mailIdentities: props.sesIdentities ?? [],
      mailConfigurationSet: mailConfigurationSetName(prefix),
      userPool: props.userPool,
      ...(props.languageModelId ? { languageModelId: props.languageModelId } : {}),
    };
    const fnProps = { stage, serviceName: props.serviceName, ...(props.logLevel ? { logLevel: props.logLevel } : {}) };

    const contextStacks = new Map<string, NestedStack>();
    const contextStack = (name: string) => {
      let nested = contextStacks.get(name);
      if (!nested) {
        nested = new NestedStack(this, name, { description: `${prefix}: ${name} functions` });
        contextStacks.set(name, nested);
      }
      return nested;
    };
    this.contextStacks = contextStacks;

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.api = new RestApi(this, 'Api', {
      restApiName: `${prefix}-api`,
      description: 'People search, enrichment and outreach API (public API and console API)',
      endpointTypes: [EndpointType.REGIONAL],
      // The usage plans count a key by the usage identifier the authorizer returns for it, never by the
      // customer's secret: API Gateway holds only those identifiers as API key values.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // The open pixel is a GIF: a Lambda proxy answer with isBase64Encoded is turned into binary only when the
      // request's Accept matches a binary media type, and mail clients send anything from `image/*` to `*/*`.
      // The price: request bodies of every content type reach the handlers base64-encoded, which the shared
      // HTTP layer decodes (event.isBase64Encoded); JSON answers (isBase64Encoded false) pass unchanged.
      binaryMediaTypes: ['*/*'],
      // Stage execution logging needs the account-level CloudWatch role; CDK manages it with the API.
      cloudWatchRole: true,
      deployOptions: stageOptions(stage, accessLogs, routes.filter((r) => r.auth !== 'user')),
    });
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason: 'Every handler validates its input with zod and answers the error envelope (docs/decisions.md#error-envelope); a gateway validator would answer in a different shape.',
      },
      {
        id: nagFinding(
          this,
          'AwsSolutions-IAM4',
          'Policy',
          ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs').managedPolicyArn,
        ),
        reason: 'The account-level API Gateway logging role uses the AWS-managed policy made for exactly that purpose.',
      },
    );

    // Per-source-address limits in front of the stage (AWS WAF), before any authorizer or stage throttle.
    this.sourceRateLimits = new SourceRateLimits(this, 'SourceRateLimits', { prefix, stage: this.api.deploymentStage, stageName: stage, limits: SOURCE_RATE_LIMIT_LIST });

    this.addGatewayResponses(this.api, 'api_key');
    // The stage's execution logs (loggingLevel ERROR) in a group of this stack with a retention, made before the stage.
    executionLogGroup(this.api, stage);
    const appAccessLogs = new LogGroup(this, 'AppApiAccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.appApi = new RestApi(this, 'AppApi', {
      restApiName: `${prefix}-app-api`,
      description: 'The customer web app API (/api/app/v1/), authorised by Cognito ID tokens',
      endpointTypes: [EndpointType.REGIONAL],
      // The account-level logging role is the public API's (one per account and region).
      cloudWatchRole: false,
      deployOptions: stageOptions(stage, appAccessLogs, routes.filter((r) => r.auth === 'user')),
    });
    // Its stage logs through the account-level role the public API sets up: created after that setting only.
    this.appApi.deploymentStage.node.addDependency(this.api.node.findChild('Account'));
    Validations.of(this.appApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason: 'Every handler validates its input with zod and answers the error envelope (docs/decisions.md#error-envelope); a gateway validator would answer in a different shape.',
    });
    Validations.of(this.appApi.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: 'Every method requires a Cognito ID token, checked by API Gateway before any function runs, under per-method stage throttles; the per-source web ACL guards the public API, whose keyless routes take no token.',
    });
    this.addGatewayResponses(this.appApi, 'user');
    executionLogGroup(this.appApi, stage);
    this.userAuthorizer = new CognitoUserPoolsAuthorizer(this, 'UserAuthorizer', { cognitoUserPools: [props.userPool], authorizerName: `${prefix}-users` });
    this.apiKeyAuthorizer = this.addApiKeyAuthorizer(contextStack(boundedContextOf(API_KEY_AUTHORIZER.module)), fnProps, props);

    const routeFunctions = new Map<RouteDef, ServiceFunction>();
    const throttles: ThrottlingPerMethod[] = [];
    const seen = new Set<string>();
    for (const route of routes) {
      const routeId = routeConstructId(route);
      if (seen.has(routeId)) throw new Error(`Two routes map to the construct id ${routeId}: ${route.method} ${route.path}`);
      // API Gateway stops waiting at 29 s: a longer function would go on working for an answer nobody reads.
      if ((route.timeoutSeconds ?? 0) > ROUTE_LIMITS.integrationTimeoutSeconds) throw new Error(`${route.method} ${route.path}: a route's timeout is at most ${ROUTE_LIMITS.integrationTimeoutSeconds} s`);
      seen.add(routeId);

      const fn = new ServiceFunction(contextStack(boundedContextOf(route.module)), `${routeId}Fn`, {
        ...fnProps,
        module: route.module,
        description: `${route.method} ${route.path}`,
        ...(route.timeoutSeconds ? { timeout: Duration.seconds(route.timeoutSeconds) } : {}),
        ...(route.assets ? { assets: route.assets } : {}),
      });
      ServiceFunction.applyBindings(fn, routeBindings(route), resources);
      fn.alarmOnErrors(props.alarmTopic);
      // The invoke permission names the method and path with any stage: naming the stage would make the
      // function's stack depend on the stage, which depends (deployment → methods) on the function.
      const routeApi = route.auth === 'user' ? this.appApi : this.api;
      fn.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: routeApi.arnForExecuteApi(route.method, methodArnPath(route), '*'),
      });
      routeFunctions.set(route, fn);

      // LambdaIntegration without its permission (added above): a proxy call to the function's invocation path.
      const integration = new AwsIntegration({ proxy: true, service: 'lambda', path: `2015-03-31/functions/${fn.functionArn}/invocations` });
      const method = routeApi.root.resourceForPath(resourcePath(route.path)).addMethod(route.method, integration, methodOptions(route, this.apiKeyAuthorizer.authorizer, this.userAuthorizer));
      acknowledgeMethodAuth(method, route);
      if (route.auth === 'api_key' && route.throttle) {
        throttles.push({ method, throttle: { rateLimit: ratePerSecond(route.throttle), burstLimit: route.throttle.burst } });
      }
    }
    this.routeFunctions = routeFunctions;

    const usagePlan = this.api.addUsagePlan('UsagePlan', {
      name: usagePlanName(prefix),
      description: 'Public API keys; per-method throttles from the route table',
      apiStages: [{ api: this.api, stage: this.api.deploymentStage, throttle: throttles }],
    });
    const usagePlanKeys = ServiceFunction.apiGatewayArn(this, `/usageplans/${usagePlan.usagePlanId}/keys`);
    const usagePlanGrants = new Map<ServiceFunction, Policy>();
    for (const [route, fn] of routeFunctions) {
      if (!route.bindings.apiKeys) continue;
      // A standalone policy: nothing depends on it, so naming the plan (which depends on the stage, the
      // deployment, the methods and so this function) closes no cycle.
      usagePlanGrants.set(
        fn,
        new Policy(this, `${routeConstructId(route)}UsagePlanGrant`, {
          roles: [fn.role!],
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['apigateway:POST'], resources: [usagePlanKeys] })],
        }),
      );
    }
    this.usagePlanGrants = usagePlanGrants;

    const workers = {} as Record<QueueKey, ServiceFunction>;
    for (const def of QUEUE_LIST) {
      const fn = new ServiceFunction(contextStack(WORKERS_CONTEXT), `${pascal(def.key)}WorkerFn`, {
        ...fnProps,
        module: def.worker.module,
        description: `Worker of the ${def.key} queue`,
        timeout: Duration.seconds(def.worker.timeoutSeconds),
        runtimePackages: def.worker.runtimePackages,
        ...(def.worker.memoryMb ? { memorySize: def.worker.memoryMb } : {}),
      });
      ServiceFunction.applyBindings(fn, def.worker.bindings, resources);
      fn.alarmOnErrors(props.alarmTopic);
      fn.addEventSource(
        new SqsEventSource(props.queues[def.key], { batchSize: def.worker.batchSize, reportBatchItemFailures: true, ...eventSourceScaling(this, def.worker.maxConcurrency) }),
      );
      workers[def.key] = fn;
      if (def.key === 'drafting' && props.bedrockModelId) {
        fn.addEnvironment('DRAFTER', 'bedrock');
        fn.addEnvironment('BEDROCK_MODEL_ID', props.bedrockModelId);
        grantBedrockInvoke(fn, props.bedrockModelId);
      }
    }
    this.workerFunctions = workers;
    if (props.searchCollection) {
      props.searchCollection.bindIndexer(workers['directory-import']);
      props.searchCollection.bindPublisher(workers['directory-finalize']);
      for (const [route, fn] of routeFunctions) if (route.module === PRIVACY_CONFIRM_MODULE) props.searchCollection.bindEraser(fn);
      props.searchCollection.accessPolicy(this, [props.searchCollection.bindSearcher(workers.search)]);
    }
    this.housekeeping = new Housekeeping(contextStack(WORKERS_CONTEXT), 'Housekeeping', {
      ...fnProps,
      prefix,
      resources,
      deadLetterQueues: props.deadLetterQueues,
      alarmTopic: props.alarmTopic,
    });
    this.mailboxPoll = new MailboxPoll(contextStack(WORKERS_CONTEXT), 'MailboxPoll', {
      ...fnProps,
      prefix,
      resources,
      alarmTopic: props.alarmTopic,
      scheduleDeadLetterQueue: this.housekeeping.sweeperScheduleDlq,
    });
    // Links written into emails (one-click unsubscribe, open pixel) point back at this API.
    workers.sending!.addEnvironment('PUBLIC_BASE_URL', this.api.url);
    // Test emails: the shared inbox is recorded at creation, the banner appended at sending (docs/decisions.md#decisions-the-contract-leaves-open).
    for (const [route, fn] of routeFunctions) {
      if (route.module === 'functions/test-emails/create.ts' && props.testInboxAddress) fn.addEnvironment('TEST_INBOX_ADDRESS', props.testInboxAddress);
    }
    if (props.testEmailBanner) workers.sending!.addEnvironment('TEST_EMAIL_BANNER', props.testEmailBanner);
    if (props.smtpRelay) {
      const [host, port] = props.smtpRelay.split(':');
      workers.sending!.addEnvironment('SMTP_HOST', host!);
      workers.sending!.addEnvironment('SMTP_PORT', port ?? '587');
      // The relay's username and password (shared/adapters/smtp-relay-credentials.ts): only the sending worker,
      // the one function that sends through the relay, may read them.
      const secret = props.smtpRelaySecret;
      if (secret) {
        workers.sending!.addEnvironment('SMTP_RELAY_SECRET_ARN', secret.secretArn);
        secret.grantRead(workers.sending!);
        if (!secret.secretFullArn) {
          // Named, not created here: Secrets Manager appends 6 random characters to the name in the ARN.
          Validations.of(workers.sending!).acknowledge({
            id: nagFinding(workers.sending!, 'AwsSolutions-IAM5', 'Resource', `${secret.secretArn}-??????`),
            reason: 'A secret named by smtpRelaySecret is granted by name with the 6 characters Secrets Manager appends to its ARN; no other secret matches.',
          });
        }
      }
    }

    // Account-wide signals that per-function error alarms miss: Lambda throttling and gateway 5xx answers.
    const alarmAction = new SnsAction(props.alarmTopic);
    new Alarm(this, 'LambdaThrottles', {
      alarmDescription: `${prefix}: Lambda throttled invocations in this account and region (concurrency exhausted)`,
      metric: new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(alarmAction);
    new Alarm(this, 'Api5xx', {
      alarmDescription: `${prefix}: the API answered 5xx`,
      metric: this.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 5,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(alarmAction);
    new Alarm(this, 'AppApi5xx', {
      alarmDescription: `${prefix}: the web-app API answered 5xx`,
      metric: this.appApi.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 5,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(alarmAction);
    // The stage's dashboard, and the alarm on jobs the sweeper ended as lost (docs/operating.md).
    this.operations = new Operations(this, 'Operations', { prefix, stage, serviceName: props.serviceName, topic: props.alarmTopic, publicApi: this.api, appApi: this.appApi });

    const consoleMethods = this.api.arnForExecuteApi('*', `${resourcePath(CONSOLE_BASE)}/*`, stage);
    this.consoleOperatorPolicy = new ManagedPolicy(this, 'ConsoleOperatorPolicy', {
      description: `${prefix}: call the console API (${CONSOLE_BASE}) with SigV4; nothing else`,
      statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['execute-api:Invoke'], resources: [consoleMethods] })],
    });
    Validations.of(this.consoleOperatorPolicy).acknowledge({
      id: nagFinding(this, 'AwsSolutions-IAM5', 'Resource', consoleMethods),
      reason: 'Operators may call every method and path of the console API of this stage, and no other API or path.',
    });
    // In a nested stack of its own: the BucketDeployment's provider function stays out of the API stack, which
    // holds methods only (its resource headroom is for routes).
    const webStack = new NestedStack(this, 'WebApp', { description: `${prefix}: the customer web app (S3, CloudFront)` });
    this.webHosting = new WebHosting(webStack, 'Hosting', { prefix, stage, appApi: this.appApi, publicApi: this.api, userPoolId: props.userPool.userPoolId, userPoolClientId: props.userPoolClientId });
    // The providers send the browser back to the public callback on the web app's domain, the domain on which
    // the app's start set the browser-binding cookie (the API's own stage URL would never receive it); the
    // callback then lands on the app's sending-accounts page. Neither value names the API's stage, on which
    // these functions' stacks would then depend.
    for (const [route, fn] of routeFunctions) {
      if (!MAILBOX_CONNECT_MODULES.includes(route.module)) continue;
      fn.addEnvironment('OAUTH_REDIRECT_URI', this.webHosting.oauthCallbackUrl);
      fn.addEnvironment('WEB_APP_URL', this.webHosting.url);
    }
    // Every outreach email's footer links the privacy page on the web app's domain, beside the unsubscribe link.
    workers.sending!.addEnvironment('PRIVACY_PAGE_URL', this.webHosting.privacyUrl);
    // A privacy request mails its link to that page, from the service's own address on its first SES domain
    // identity (without one it answers 503: shared/privacy-requests/verification-mail.ts).
    const privacySenderDomain = (props.sesIdentities ?? []).find((identity) => !identity.includes('@'));
    for (const [route, fn] of routeFunctions) {
      if (route.module !== PRIVACY_REQUEST_MODULE) continue;
      fn.addEnvironment('PRIVACY_PAGE_URL', this.webHosting.privacyUrl);
      if (privacySenderDomain) fn.addEnvironment('PRIVACY_MAIL_FROM', `privacy@${privacySenderDomain}`);
    }
    new CfnOutput(this, 'WebAppUrl', { value: this.webHosting.url, description: 'The customer web app (CloudFront)' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the stage' });
    new CfnOutput(this, 'AppApiUrl', { value: this.appApi.url, description: 'Base URL of the web app API stage' });
    new CfnOutput(this, 'ConsoleOperatorPolicyArn', { value: this.consoleOperatorPolicy.managedPolicyArn, description: 'Attach to an operator role to call the console API with SigV4' });
  }

  /**
   * The REQUEST authorizer of the API-key routes (shared/catalog/authorizer.ts), its function in the nested
   * stack of its context. It may only GetItem the accounts table. API Gateway's invoke permission names this
   * API's authorizers rather than this authorizer: naming its id would make the function's stack depend on
   * the authorizer, which depends on the function's ARN — a cycle across the nested-stack boundary. The API
   * has no other authorizer. CDK's own permission is skipped for the same reason (the function is handed to
   * the authorizer by reference).
   */
  private addApiKeyAuthorizer(scope: Construct, fnProps: { stage: string; serviceName: string; logLevel?: string }, props: ApiStackProps) {
    const fn = new ServiceFunction(scope, 'ApiKeyAuthorizerFn', {
      ...fnProps,
      module: API_KEY_AUTHORIZER.module,
      description: `REQUEST authorizer of the public API keys (${API_KEY_AUTHORIZER.identityHeader})`,
    });
    fn.addEnvironment(TABLES.accounts.env, props.tables.accounts.tableName);
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['dynamodb:GetItem'], resources: [props.tables.accounts.tableArn] }));
    fn.alarmOnErrors(props.alarmTopic);
    fn.addPermission('ApiAuthorizerInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: this.api.restApiId, resourceName: 'authorizers/*' }),
    });
    const authorizer = new RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: LambdaFunction.fromFunctionAttributes(this, 'ApiKeyAuthorizerFnRef', { functionArn: fn.functionArn, skipPermissions: true }),
      identitySources: [IdentitySource.header(API_KEY_AUTHORIZER.identityHeader)],
      resultsCacheTtl: Duration.seconds(API_KEY_AUTHORIZER.resultTtlSeconds),
    });
    return { authorizer, fn };
  }

  /**
   * The gateway's own errors in the shapes of docs/decisions.md#gateway-errors, each with `X-Request-Id` like every handler response.
   * DEFAULT_4XX/5XX keep API Gateway's message and only add the header.
   */
  private addGatewayResponses(api: RestApi, auth: 'api_key' | 'user'): void {
    const responseHeaders = { 'X-Request-Id': 'context.requestId', 'Content-Type': "'application/json'" };
    const unauthorized =
      auth === 'api_key'
        ? // No x-api-key at all: API Gateway refuses without calling the authorizer, with 401 by default.
          { id: 'Unauthorized', type: ResponseType.UNAUTHORIZED, statusCode: '403', body: '{"message":"Forbidden"}' }
        : // A missing, invalid or expired ID token: one answer for all (Cognito's own says "The incoming token has expired").
          { id: 'Unauthorized', type: ResponseType.UNAUTHORIZED, statusCode: '401', body: '{"message":"Unauthorized"}' };
    const responses: { id: string; type: ResponseType; statusCode: string; body: string }[] = [
      { id: 'MissingAuthenticationToken', type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '403', body: '{"message":"Missing Authentication Token"}' },
      { id: 'InvalidApiKey', type: ResponseType.INVALID_API_KEY, statusCode: '403', body: '{"message":"Forbidden"}' },
      // The authorizer's Deny (an unknown or revoked key).
      { id: 'AccessDenied', type: ResponseType.ACCESS_DENIED, statusCode: '403', body: '{"message":"Forbidden"}' },
      unauthorized,
      { id: 'Throttled', type: ResponseType.THROTTLED, statusCode: '429', body: '{"message":"Too Many Requests"}' },
      { id: 'Default4xx', type: ResponseType.DEFAULT_4XX, statusCode: '', body: '{"message":$context.error.messageString}' },
      { id: 'Default5xx', type: ResponseType.DEFAULT_5XX, statusCode: '', body: '{"message":$context.error.messageString}' },
    ];
    for (const r of responses) {
      api.addGatewayResponse(r.id, {
        type: r.type,
        ...(r.statusCode ? { statusCode: r.statusCode } : {}),
        responseHeaders,
        templates: { 'application/json': r.body },
      });
    }
  }
}


/**
 * The route's own bindings, plus, for routes whose handler resolves an API key, accounts-table read and,
 * where that is all it has there, the grant to record the key's use.
 */

function methodOptions(route: RouteDef, apiKeyAuthorizer: RequestAuthorizer, userAuthorizer: CognitoUserPoolsAuthorizer) {
  switch (route.auth) {
    case 'user':
      return { authorizer: userAuthorizer, authorizationType: AuthorizationType.COGNITO };
    case 'api_key':
      return { apiKeyRequired: true, authorizer: apiKeyAuthorizer, authorizationType: AuthorizationType.CUSTOM };
    case 'admin':
      return { authorizationType: AuthorizationType.IAM };
    case 'handler_key':
    case 'public':
      return { authorizationType: AuthorizationType.NONE };
  }
}

const AUTH_REASON: Record<RouteDef['auth'], string> = {
  api_key: 'Public API route authorised by the API-key Lambda authorizer (docs/decisions.md#authentication x-api-key); there are no end-user identities to put in a Cognito pool.',
  admin: 'Console API route authorised with IAM (SigV4) by the web console backend; there are no end-user identities to put in a Cognito pool.',
  handler_key: 'The handler checks the API key itself so it can answer 401 unauthorized as docs/decisions.md#401 requires for test-email routes.',
  public: 'Deliberately unauthenticated (open-tracking pixel, one-click unsubscribe, OAuth callback, privacy requests): mail clients, browsers sent back by a mailbox provider and people without an account cannot send credentials; a privacy link carries a single-use 256-bit token.',
  user: 'Web app route authorised by the Cognito user-pool authorizer.',
};

function acknowledgeMethodAuth(method: Method, route: RouteDef): void {
  const reason = AUTH_REASON[route.auth];
  if (route.auth === 'user') return;
  Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason });
  if (route.auth === 'handler_key' || route.auth === 'public') Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}
