import { Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type Method,
  type ThrottlingPerMethod,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Bindings } from '../shared/catalog/bindings.js';
import { QUEUE_LIST, type QueueKey } from '../shared/catalog/queues.js';
import { ROUTES, ratePerSecond, type RouteDef } from '../shared/catalog/routes.js';
import type { TableKey } from '../shared/catalog/tables.js';
import { ServiceFunction, nagFinding, type BindingResources } from './constructs/service-function.js';
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
  readonly secretBoxKey: ISecret;
  readonly directoryBucket: IBucket;
  /** Draft with Amazon Bedrock (Converse API) using this model id instead of the built-in composer. */
  readonly bedrockModelId?: string;
  /** `host:port` of the SMTP relay that `smtp` sending accounts go out through. */
  readonly smtpRelay?: string;
  readonly scheduleGroup: IScheduleGroup;
  readonly schedulerRole: IRole;
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
 * API Gateway resource path of a route. SPEC.md paths end with `/`, but an API Gateway resource cannot have an
 * empty path part, so `/a/b/` becomes the resource `/a/b`. API Gateway then serves that resource at both
 * `/a/b/` and `/a/b`: in AWS the slash-less form is answered too, where SPEC.md says it is not registered
 * (the local gateway answers it with 403 Missing Authentication Token). Refusing it at the edge would take a
 * CloudFront function in front of the API (403 for any path not ending in `/`), or a check of the raw
 * `event.path` in the shared HTTP middleware — not a `{proxy+}` catch-all, which would hide unknown paths too.
 */
export function resourcePath(routePath: string): string {
  const trimmed = routePath.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/**
 * The stateless side: one Lambda per route of the route table behind a REST API (API keys + usage-plan
 * throttles for the public API, IAM for the console API), one worker Lambda per queue of the queue catalogue.
 */
export class ApiStack extends Stack {
  readonly api: RestApi;
  readonly routeFunctions: ReadonlyMap<RouteDef, ServiceFunction>;
  readonly workerFunctions: Readonly<Record<QueueKey, ServiceFunction>>;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { prefix, stage } = props;

    const resources: BindingResources = {
      tables: props.tables,
      queues: props.queues,
      scheduler: { group: props.scheduleGroup, role: props.schedulerRole, timersQueue: props.queues.timers },
      secretBox: props.secretBoxKey,
      apiKeys: { usagePlanName: usagePlanName(prefix) },
      directory: { bucket: props.directoryBucket, key: DIRECTORY_OBJECT_KEY },
    };
    const fnProps = { stage, serviceName: props.serviceName, ...(props.logLevel ? { logLevel: props.logLevel } : {}) };

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.api = new RestApi(this, 'Api', {
      restApiName: `${prefix}-api`,
      description: 'People search, enrichment and outreach API (public API and console API)',
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: ApiKeySourceType.HEADER,
      // Stage execution logging needs the account-level CloudWatch role; CDK manages it with the API.
      cloudWatchRole: true,
      deployOptions: {
        stageName: stage,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Request/response bodies carry personal data and keys: never written to execution logs.
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
    });
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason: 'Every handler validates its input with zod and answers the SPEC.md error envelope; a gateway validator would answer in a different shape.',
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

    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: 'A WAF web ACL is a per-account edge and cost decision left to the deployment; API keys with usage-plan throttles and IAM already gate every route.',
    });

    this.addGatewayResponses();

    const routeFunctions = new Map<RouteDef, ServiceFunction>();
    const throttles: ThrottlingPerMethod[] = [];
    const seen = new Set<string>();
    for (const route of ROUTES) {
      const routeId = routeConstructId(route);
      if (seen.has(routeId)) throw new Error(`Two routes map to the construct id ${routeId}: ${route.method} ${route.path}`);
      seen.add(routeId);

      const fn = new ServiceFunction(this, `${routeId}Fn`, {
        ...fnProps,
        module: route.module,
        description: `${route.method} ${route.path}`,
        ...(route.timeoutSeconds ? { timeout: Duration.seconds(route.timeoutSeconds) } : {}),
      });
      ServiceFunction.applyBindings(fn, routeBindings(route), resources);
      routeFunctions.set(route, fn);

      const method = this.api.root.resourceForPath(resourcePath(route.path)).addMethod(
        route.method,
        new LambdaIntegration(fn, { allowTestInvoke: false }),
        methodOptions(route),
      );
      acknowledgeMethodAuth(method, route);
      if (route.throttle) {
        throttles.push({ method, throttle: { rateLimit: ratePerSecond(route.throttle), burstLimit: route.throttle.burst } });
      }
    }
    this.routeFunctions = routeFunctions;

    this.api.addUsagePlan('UsagePlan', {
      name: usagePlanName(prefix),
      description: 'Public API keys; per-method throttles from the route table',
      apiStages: [{ api: this.api, stage: this.api.deploymentStage, throttle: throttles }],
    });

    const workers = {} as Record<QueueKey, ServiceFunction>;
    for (const def of QUEUE_LIST) {
      const fn = new ServiceFunction(this, `${pascal(def.key)}WorkerFn`, {
        ...fnProps,
        module: def.worker.module,
        description: `Worker of the ${def.key} queue`,
        timeout: Duration.seconds(def.worker.timeoutSeconds),
        runtimePackages: def.worker.runtimePackages,
        ...(def.worker.memoryMb ? { memorySize: def.worker.memoryMb } : {}),
      });
      ServiceFunction.applyBindings(fn, def.worker.bindings, resources);
      fn.addEventSource(
        new SqsEventSource(props.queues[def.key], { batchSize: def.worker.batchSize, reportBatchItemFailures: true }),
      );
      workers[def.key] = fn;
      if (def.key === 'drafting' && props.bedrockModelId) {
        fn.addEnvironment('DRAFTER', 'bedrock');
        fn.addEnvironment('BEDROCK_MODEL_ID', props.bedrockModelId);
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: ['bedrock:InvokeModel'],
            resources: [Stack.of(this).formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: props.bedrockModelId })],
          }),
        );
      }
    }
    this.workerFunctions = workers;
    // Links written into emails (one-click unsubscribe, open pixel) point back at this API.
    workers.sending!.addEnvironment('PUBLIC_BASE_URL', this.api.url);
    if (props.smtpRelay) {
      const [host, port] = props.smtpRelay.split(':');
      workers.sending!.addEnvironment('SMTP_HOST', host!);
      workers.sending!.addEnvironment('SMTP_PORT', port ?? '587');
    }

  }

  /**
   * The gateway's own errors in DESIGN.md §3's shapes, each with `X-Request-Id` like every handler response.
   * DEFAULT_4XX/5XX keep API Gateway's message and only add the header.
   */
  private addGatewayResponses(): void {
    const responseHeaders = { 'X-Request-Id': 'context.requestId', 'Content-Type': "'application/json'" };
    const responses: { id: string; type: ResponseType; statusCode: string; body: string }[] = [
      { id: 'MissingAuthenticationToken', type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '403', body: '{"message":"Missing Authentication Token"}' },
      { id: 'InvalidApiKey', type: ResponseType.INVALID_API_KEY, statusCode: '403', body: '{"message":"Forbidden"}' },
      { id: 'AccessDenied', type: ResponseType.ACCESS_DENIED, statusCode: '403', body: '{"message":"Forbidden"}' },
      { id: 'Throttled', type: ResponseType.THROTTLED, statusCode: '429', body: '{"message":"Too Many Requests"}' },
      { id: 'Default4xx', type: ResponseType.DEFAULT_4XX, statusCode: '', body: '{"message":$context.error.messageString}' },
      { id: 'Default5xx', type: ResponseType.DEFAULT_5XX, statusCode: '', body: '{"message":$context.error.messageString}' },
    ];
    for (const r of responses) {
      this.api.addGatewayResponse(r.id, {
        type: r.type,
        ...(r.statusCode ? { statusCode: r.statusCode } : {}),
        responseHeaders,
        templates: { 'application/json': r.body },
      });
    }
  }
}

/** The route's own bindings, plus accounts-table read for routes whose handler resolves an API key. */
function routeBindings(route: RouteDef): Bindings {
  if (route.auth !== 'api_key' && route.auth !== 'handler_key') return route.bindings;
  const tables = { ...route.bindings.tables };
  if (tables.accounts === undefined) tables.accounts = 'read';
  return { ...route.bindings, tables };
}

function methodOptions(route: RouteDef) {
  switch (route.auth) {
    case 'api_key':
      return { apiKeyRequired: true, authorizationType: AuthorizationType.NONE };
    case 'admin':
      return { authorizationType: AuthorizationType.IAM };
    case 'handler_key':
    case 'public':
      return { authorizationType: AuthorizationType.NONE };
  }
}

const AUTH_REASON: Record<RouteDef['auth'], string> = {
  api_key: 'Public API route authorised by an API Gateway API key (SPEC.md); there are no end-user identities to put in a Cognito pool.',
  admin: 'Console API route authorised with IAM (SigV4) by the web console backend; there are no end-user identities to put in a Cognito pool.',
  handler_key: 'The handler checks the API key itself so it can answer 401 unauthorized as SPEC.md requires for test-email routes.',
  public: 'Deliberately unauthenticated (open-tracking pixel, one-click unsubscribe): mail clients cannot send credentials.',
};

function acknowledgeMethodAuth(method: Method, route: RouteDef): void {
  const reason = AUTH_REASON[route.auth];
  Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason });
  // cdk-nag counts only an authorizer as authorization; an API key (usage plan) is not one to it.
  if (route.auth !== 'admin') Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}
