import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations, type NestedStack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnPolicy } from 'aws-cdk-lib/aws-iam';
import { CfnEventSourceMapping, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { MAILBOX_CONNECT_MODULES, STAGE_METHOD_CEILING, WORKERS_CONTEXT, boundedContextOf, resourcePath, usagePlanName } from '../../lib/api-stack.js';
import { createServiceStacks, type ServiceOptions } from '../../lib/service.js';
import { DEFAULT_MAX_LAMBDA_MEMORY_MB, REPO_ROOT, TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS, type ServiceFunction } from '../../lib/constructs/service-function.js';
import { DEAD_LETTER_QUEUE_VISIBILITY_SECONDS, SQS_VISIBILITY_PER_FUNCTION_TIMEOUT, pascal } from '../../lib/stateful-stack.js';
import type { IConstruct } from 'constructs';
import { LANGUAGE_MODEL_ENVIRONMENT, grantedEnvironment, type Bindings } from '../../shared/catalog/bindings.js';
import { DEAD_LETTERS, MAILBOX_POLL, QUEUES, QUEUE_LIST, SWEEPER, queueName } from '../../shared/catalog/queues.js';
import { APP_LIMITS, ROUTES, SOURCE_RATE_LIMITS, SOURCE_RATE_LIMIT_LIST, countsAgainst, ratePerSecond, type RouteDef } from '../../shared/catalog/routes.js';
import { API_KEY_AUTHORIZER } from '../../shared/catalog/authorizer.js';
import { RETENTION, TABLES, TABLE_LIST, type TableKey } from '../../shared/catalog/tables.js';
import { mailConfigurationSetName } from '../../lib/constructs/mail-events.js';
import { MAIL_ALARMS, RATE_ALARMS } from '../../lib/constructs/mail-alarms.js';
import { DASHBOARD_TITLES, dashboardName } from '../../lib/constructs/operations.js';
import { DEADLINES, queueAgeDeadlineSeconds } from '../../shared/catalog/deadlines.js';
import { METRIC_NAMES } from '../../shared/core/metrics.js';
import type { CfnRule } from 'aws-cdk-lib/aws-events';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import type { CfnConfigurationSet } from 'aws-cdk-lib/aws-ses';
import { webAppHeaders } from '../../shared/local/web-app.js';
import { cognitoEndpointOf } from '../../shared/catalog/web-app.js';

type Json = Record<string, any>;

const STAGE = 'test';
const PREFIX = `people-outreach-${STAGE}`;
const CDK_CONTEXT: Json = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context;

const SES_IDENTITIES = ['mail.example.com', 'sender@other.example'];

/** The same wiring as bin/app.ts (lib/service.ts), with bundling skipped so no esbuild run is needed. */
function buildApp(routes?: RouteDef[]) {
  const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  return { app, ...createServiceStacks(app, { stage: STAGE, sesIdentities: SES_IDENTITIES, ...(routes ? { routes } : {}) }) };
}

/** bin/app.ts's wiring with more options and CDK context (`-c key=value`), bundling skipped. */
function buildVariant(opts: Partial<ServiceOptions>, context: Json = {}) {
  const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
  return { app, ...createServiceStacks(app, { stage: STAGE, sesIdentities: SES_IDENTITIES, ...opts }) };
}

/** Both cdk-nag packs bin/app.ts attaches: every finding nobody acknowledged, as `severity rule: paths`. */
function nagFindings(scope: App): string[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack.validateScope(scope).violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
  );
}

const { app, stateful, api } = buildApp();
const apiT = Template.fromStack(api);
const statefulT = Template.fromStack(stateful);
const apiResources: Record<string, Json> = apiT.toJSON().Resources;
const statefulResources: Record<string, Json> = statefulT.toJSON().Resources;
const nestedStacks: NestedStack[] = [...api.contextStacks.values()];

const templates = new Map<Stack, Template>();
const templateOf = (c: IConstruct): Template => {
  const stack = Stack.of(c);
  if (!templates.has(stack)) templates.set(stack, Template.fromStack(stack));
  return templates.get(stack)!;
};
const resourcesOf = (c: IConstruct): Record<string, Json> => templateOf(c).toJSON().Resources;

const logicalId = (fn: ServiceFunction) => Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnFunction);
const ofType = (resources: Record<string, Json>, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const asArray = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);
/** Every resource of the API stack and its nested stacks, keyed `<stack>/<logical id>`. */
const allApiResources = (): [string, Json][] =>
  [api, ...nestedStacks].flatMap((st) => Object.entries(resourcesOf(st)).map(([id, r]) => [`${st.node.path}/${id}`, r] as [string, Json]));

/** Full path of every API Gateway resource, following ParentId up to the API's root. */
function resourcePaths(): Map<string, string> {
  const paths = new Map<string, string>();
  const resolve = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const props = apiResources[id]!.Properties;
    const parent = props.ParentId.Ref ? resolve(props.ParentId.Ref) : '';
    const path = `${parent}/${props.PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const [id] of ofType(apiResources, 'AWS::ApiGateway::Resource')) resolve(id);
  return paths;
}

/** All policy statements attached to a function's execution role: its own stack's, and a grant kept in the API stack. */
function statementsOf(fn: ServiceFunction): Json[] {
  const resources = resourcesOf(fn);
  const roleId = resources[logicalId(fn)]!.Properties.Role['Fn::GetAtt'][0];
  const own = ofType(resources, 'AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
  const grant = api.usagePlanGrants.get(fn);
  const extra = grant ? (apiResources[api.getLogicalId(grant.node.defaultChild as CfnPolicy)]!.Properties.PolicyDocument.Statement as Json[]) : [];
  return [...own, ...extra];
}

/** Does this (resolved) resource refer to the given table, or one of its indexes? */
function refersToTable(resource: unknown, key: TableKey): boolean {
  return new RegExp(`ExportsOutputFnGetAtt${pascal(key)}Table[0-9A-F]{8}Arn`).test(JSON.stringify(resource));
}

/** The bindings the stack must apply to a route: accounts read is implied for routes that resolve a key. */
function expectedRouteBindings(route: RouteDef): Bindings {
  // A web-app route keeps its user's and its account's token buckets (RATE# items of the accounts table).
  if (route.auth === 'user') return { ...route.bindings, tables: { accounts: 'read', ...route.bindings.tables }, keyThrottle: true };
  if (route.auth !== 'api_key' && route.auth !== 'handler_key') return route.bindings;
  const tables: Bindings['tables'] = { accounts: 'read', ...route.bindings.tables };
  // A key's hourly "last used" is written by every route that resolves one: those that only read accounts get the narrow grant.
  return { ...route.bindings, tables, ...(tables.accounts === 'read' ? { keyUse: true } : {}) };
}

/**
 * The actions a function may take on matching resources, leaving out the narrow grant every key-resolving route
 * has to record a key's "last used" (one attribute; asserted on its own in IAM least privilege).
 */
const actionsOn = (fn: ServiceFunction, matches: (resource: unknown) => boolean) =>
  [...new Set(statementsOf(fn).filter((s) => !JSON.stringify(s.Condition ?? {}).includes('dynamodb:Attributes') && asArray(s.Resource).some(matches)).flatMap((s) => asArray<string>(s.Action)))].sort();

const RATE_BUCKETS = expect.objectContaining({ Action: 'dynamodb:UpdateItem', Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } } });
const KEY_USE = expect.objectContaining({
  Action: 'dynamodb:UpdateItem',
  Condition: {
    'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'ACCOUNT#*'] },
    StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
  },
});

const allFunctions: { name: string; fn: ServiceFunction; bindings: Bindings }[] = [
  ...ROUTES.map((r) => ({ name: `${r.method} ${r.path}`, fn: api.routeFunctions.get(r)!, bindings: expectedRouteBindings(r) })),
  ...QUEUE_LIST.map((q) => ({ name: `worker ${q.key}`, fn: api.workerFunctions[q.key], bindings: q.worker.bindings })),
  { name: 'dead-letter consumer', fn: api.housekeeping.deadLetterFunction, bindings: DEAD_LETTERS.bindings },
  { name: 'sweeper', fn: api.housekeeping.sweeperFunction, bindings: SWEEPER.bindings },
  { name: 'mailbox poller', fn: api.mailboxPoll.pollFunction, bindings: MAILBOX_POLL.bindings },
];

describe('functions', () => {
  test('one Lambda per route and per queue worker, the API-key authorizer, the dead-letter consumer, the sweeper and the mailbox poller, and no other', () => {
    expect(ofType(Object.fromEntries(allApiResources()), 'AWS::Lambda::Function')).toHaveLength(ROUTES.length + QUEUE_LIST.length + 4);
    expect(resourcesOf(api.apiKeyAuthorizer.fn)[logicalId(api.apiKeyAuthorizer.fn)]?.Type).toBe('AWS::Lambda::Function');
    for (const { name, fn } of allFunctions) {
      expect([name, resourcesOf(fn)[logicalId(fn)]?.Type]).toEqual([name, 'AWS::Lambda::Function']);
    }
  });

  test('functions live in the nested stack of their bounded context, workers in Workers', () => {
    for (const route of ROUTES) {
      expect([route.module, Stack.of(api.routeFunctions.get(route)!).node.id]).toEqual([route.module, boundedContextOf(route.module)]);
    }
    for (const q of QUEUE_LIST) expect(Stack.of(api.workerFunctions[q.key]).node.id).toBe(WORKERS_CONTEXT);
    expect(Stack.of(api.housekeeping.deadLetterFunction).node.id).toBe(WORKERS_CONTEXT);
    expect(Stack.of(api.housekeeping.sweeperFunction).node.id).toBe(WORKERS_CONTEXT);
    expect(() => boundedContextOf('functions/unknown-area/x.ts')).toThrow(/No bounded context/);
  });

  test('every function has one error alarm to the stateful stack’s alarm topic', () => {
    const topicExport = /ExportsOutputRefAlarmTopic[0-9A-F]{8}/;
    for (const { name, fn } of allFunctions) {
      const alarms = ofType(resourcesOf(fn), 'AWS::CloudWatch::Alarm').filter(
        ([, a]) => a.Properties.MetricName === 'Errors' && a.Properties.Dimensions?.[0]?.Value?.Ref === logicalId(fn),
      );
      expect([name, alarms.length]).toEqual([name, 1]);
      expect(JSON.stringify(alarms[0]![1].Properties.AlarmActions)).toMatch(topicExport);
    }
    for (const fn of [stateful.node.findChild('InboundMail').node.findChild('Fn'), stateful.node.findChild('DirectoryImport').node.findChild('Fn')]) {
      const id = stateful.getLogicalId((fn as ServiceFunction).node.defaultChild as CfnFunction);
      expect(ofType(statefulResources, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.Dimensions?.[0]?.Value?.Ref === id)).toHaveLength(1);
    }
  });

  test.each(['Search', 'Outreach', 'Console', WORKERS_CONTEXT])('every function of %s runs Node.js 22 on arm64 with active tracing, source maps and its own one-month log group', (context) => {
    const nestedT = templateOf(api.contextStacks.get(context)!);
    nestedT.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Handler: 'index.handler',
      LoggingConfig: { LogGroup: { Ref: Match.anyValue() } },
      Environment: {
        Variables: Match.objectLike({
          POWERTOOLS_SERVICE_NAME: 'people-outreach',
          POWERTOOLS_METRICS_NAMESPACE: `people-outreach/${STAGE}`,
          SERVICE_STAGE: STAGE,
          LOG_LEVEL: 'INFO',
        }),
      },
    });
    nestedT.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  test('workers, the dead-letter consumer and the sweeper take their timeout from the queue catalogue', () => {
    for (const q of QUEUE_LIST) {
      const fn = api.workerFunctions[q.key];
      expect([q.key, resourcesOf(fn)[logicalId(fn)]!.Properties.Timeout]).toEqual([q.key, q.worker.timeoutSeconds]);
    }
    const { deadLetterFunction, sweeperFunction } = api.housekeeping;
    expect(resourcesOf(deadLetterFunction)[logicalId(deadLetterFunction)]!.Properties.Timeout).toBe(DEAD_LETTERS.timeoutSeconds);
    expect(resourcesOf(sweeperFunction)[logicalId(sweeperFunction)]!.Properties.Timeout).toBe(SWEEPER.timeoutSeconds);
  });

  test('every bound table, queue and the scheduler reach the function as environment variables', () => {
    for (const { name, fn, bindings } of allFunctions) {
      const env: Json = resourcesOf(fn)[logicalId(fn)]!.Properties.Environment.Variables;
      // The resource variables are those the twin shows the same function (shared/local/function-context.ts),
      // under their AWS names: a secret by its ARN, not by its value.
      const localOnly = new Set(['SECRET_BOX_KEY', 'MAILBOX_PROVIDERS']);
      const oauthRoutes = new Set(ROUTES.filter((r) => MAILBOX_CONNECT_MODULES.includes(r.module)).map((r) => `${r.method} ${r.path}`));
      const expected = [
        // The language model's variables come only with -c languageModelId (its own tests below); this stack has none.
        ...grantedEnvironment(bindings, TABLES, QUEUES).filter((v) => !localOnly.has(v) && !(LANGUAGE_MODEL_ENVIRONMENT as readonly string[]).includes(v)),
        ...(oauthRoutes.has(name) ? ['OAUTH_REDIRECT_URI', 'WEB_APP_URL'] : []),
        ...(name === 'worker sending' ? ['PUBLIC_BASE_URL', 'PRIVACY_PAGE_URL'] : []),
        // A privacy request mails its link to the privacy page, from privacy@ the first SES domain identity.
        ...(name === 'POST /api/public/v1/privacy-requests/' ? ['PRIVACY_PAGE_URL', 'PRIVACY_MAIL_FROM'] : []),
      ];
      const base = ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'LOG_LEVEL', 'SERVICE_STAGE'];
      expect([name, Object.keys(env).sort()]).toEqual([name, [...base, ...expected].sort()]);
      if (bindings.scheduler) {
        expect(env.SCHEDULER_GROUP_NAME).toBe(`${PREFIX}-schedules`);
        expect(JSON.stringify(env.TIMERS_DLQ_ARN)).toMatch(/ExportsOutputFnGetAttTimersDlq[0-9A-F]{8}Arn/);
      }
      if (bindings.apiKeys) expect(env.USAGE_PLAN_NAME).toBe(usagePlanName(PREFIX));
    }
  });
});

describe('REST API', () => {
  const paths = resourcePaths();
  const methods = ofType(apiResources, 'AWS::ApiGateway::Method');

  function methodOf(route: RouteDef): Json {
    const found = methods.filter(
      ([, m]) => m.Properties.HttpMethod === route.method && paths.get(m.Properties.ResourceId.Ref) === resourcePath(route.path),
    );
    expect([`${route.method} ${route.path}`, found.length]).toEqual([`${route.method} ${route.path}`, 1]);
    return found[0]![1].Properties;
  }

  test('trailing-slash paths map to the slash-less API Gateway resource', () => {
    expect(resourcePath('/api/public/v1/email/accounts/')).toBe('/api/public/v1/email/accounts');
    expect(resourcePath('/api/console/v1/accounts/{id}/')).toBe('/api/console/v1/accounts/{id}');
    for (const [, r] of ofType(apiResources, 'AWS::ApiGateway::Resource')) expect(r.Properties.PathPart).not.toBe('');
  });

  test('one method per route, on the route path, proxying to that route’s function, which only that method may invoke', () => {
    expect(methods).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const method = methodOf(route);
      const fn = api.routeFunctions.get(route)!;
      const outputs: Record<string, Json> = templateOf(fn).toJSON().Outputs;
      const arnOutput = Object.entries(outputs).find(([, o]) => JSON.stringify(o.Value) === JSON.stringify({ 'Fn::GetAtt': [logicalId(fn), 'Arn'] }))![0];
      expect(method.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(JSON.stringify(method.Integration.Uri)).toContain(`Outputs.${arnOutput}`);

      const permissions = ofType(resourcesOf(fn), 'AWS::Lambda::Permission').filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === logicalId(fn));
      expect([route.path, permissions.length]).toEqual([route.path, 1]);
      const { Principal, SourceArn } = permissions[0]![1].Properties;
      expect(Principal).toBe('apigateway.amazonaws.com');
      const arnPath = resourcePath(route.path).replace(/\{[^}]+\}/g, '*');
      expect(JSON.stringify(SourceArn)).toContain(`/*/${route.method}${arnPath}"`);
    }
  });

  test('the API returns binary for every Accept (the open pixel is a GIF)', () => {
    apiT.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  test('routes without an API key (public) carry their route-table throttle as stage method settings; handler_key routes their edge ceiling', () => {
    const unkeyed = ROUTES.filter((r) => r.auth !== 'api_key' && r.throttle);
    const stageThrottle = (route: RouteDef) => (route.auth === 'handler_key' ? route.edgeThrottle! : route.throttle!);
    expect(unkeyed.map((r) => r.path)).toEqual(expect.arrayContaining(['/api/public/v1/o/{token}/', '/api/public/v1/u/{token}/']));
    expect(ROUTES.filter((r) => r.auth === 'public' && !r.throttle)).toEqual([]);
    const stageOf = (restApi: Json) => ofType(apiResources, 'AWS::ApiGateway::Stage').find(([, st]) => st.Properties.RestApiId.Ref === api.getLogicalId(restApi as never))![1];
    for (const route of unkeyed) {
      const settings: Json[] = stageOf((route.auth === 'user' ? api.appApi : api.api).node.defaultChild as Json).Properties.MethodSettings;
      const escaped = `/${resourcePath(route.path).replace(/\//g, '~1')}`;
      expect(settings).toContainEqual({
        ResourcePath: escaped,
        HttpMethod: route.method,
        ThrottlingRateLimit: ratePerSecond(stageThrottle(route)),
        ThrottlingBurstLimit: stageThrottle(route).burst,
        LoggingLevel: 'ERROR',
        MetricsEnabled: true,
        DataTraceEnabled: false,
      });
    }
  });

  test('operators get a managed policy allowing execute-api:Invoke on the console paths of this stage only, output by the stack', () => {
    const policies = ofType(apiResources, 'AWS::IAM::ManagedPolicy');
    expect(policies).toHaveLength(1);
    const [policyId, policy] = policies[0]!;
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('execute-api:Invoke');
    const arn = JSON.stringify(statements[0].Resource);
    expect(arn).toContain(`":execute-api:"`);
    expect(arn).toContain(`/${STAGE}/*/api/console/v1/*"`);
    expect(arn).toContain(`{"Ref":"${api.getLogicalId(api.api.node.defaultChild as never)}"}`);
    apiT.hasOutput('ConsoleOperatorPolicyArn', { Value: { Ref: policyId } });
  });

  test('api_key routes require an API key and the API-key authorizer, admin routes use IAM, user routes the Cognito authorizer, handler_key and public routes (o/, u/) neither', () => {
    const authorizerRef = { Ref: api.getLogicalId(api.apiKeyAuthorizer.authorizer.node.defaultChild as never) };
    const userAuthorizerRef = { Ref: api.getLogicalId(api.userAuthorizer.node.defaultChild as never) };
    const seen = new Set<string>();
    for (const route of ROUTES) {
      const method = methodOf(route);
      seen.add(route.auth);
      const expected = {
        api_key: { ApiKeyRequired: true, AuthorizationType: 'CUSTOM', AuthorizerId: authorizerRef },
        admin: { ApiKeyRequired: undefined, AuthorizationType: 'AWS_IAM', AuthorizerId: undefined },
        handler_key: { ApiKeyRequired: undefined, AuthorizationType: 'NONE', AuthorizerId: undefined },
        public: { ApiKeyRequired: undefined, AuthorizationType: 'NONE', AuthorizerId: undefined },
        user: { ApiKeyRequired: undefined, AuthorizationType: 'COGNITO_USER_POOLS', AuthorizerId: userAuthorizerRef },
      }[route.auth];
      expect([route.path, method.ApiKeyRequired, method.AuthorizationType, method.AuthorizerId]).toEqual([
        route.path,
        expected.ApiKeyRequired,
        expected.AuthorizationType,
        expected.AuthorizerId,
      ]);
    }
    expect(seen).toContain('api_key');
    expect(seen).toContain('admin');
    expect(seen).toContain('user');
    const tracking = ROUTES.filter((r) => /\/(o|u)\/\{token\}\/$/.test(r.path));
    expect(tracking).toHaveLength(3);
    for (const route of tracking) expect(methodOf(route).AuthorizerId).toBeUndefined();
  });

  test('API keys come from the authorizer (its usage identifier); the stage traces, logs errors and access, and emits metrics', () => {
    apiT.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    apiT.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: STAGE,
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
      MethodSettings: Match.arrayWith([Match.objectLike({ ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', MetricsEnabled: true, DataTraceEnabled: false })]),
    });
  });

  test('the usage plan carries exactly the route table’s throttles of API-key routes, per /{path}/{METHOD}', () => {
    const expected: Json = {};
    for (const route of ROUTES.filter((r) => r.auth === 'api_key' && r.throttle)) {
      expected[`${resourcePath(route.path)}/${route.method}`] = {
        RateLimit: ratePerSecond(route.throttle!),
        BurstLimit: route.throttle!.burst,
      };
    }
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    const plans = ofType(apiResources, 'AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(1);
    const plan = plans[0]![1].Properties;
    expect(plan.UsagePlanName).toBe(usagePlanName(PREFIX));
    expect(plan.ApiStages).toHaveLength(1);
    expect(plan.ApiStages[0].Throttle).toEqual(expected);
  });

  test.each([
    ['MISSING_AUTHENTICATION_TOKEN', '403', '{"message":"Missing Authentication Token"}'],
    ['INVALID_API_KEY', '403', '{"message":"Forbidden"}'],
    ['ACCESS_DENIED', '403', '{"message":"Forbidden"}'],
    ['UNAUTHORIZED', '403', '{"message":"Forbidden"}'],
    ['THROTTLED', '429', '{"message":"Too Many Requests"}'],
  ])('gateway response %s answers %s %s with X-Request-Id', (type, status, body) => {
    apiT.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: status,
      ResponseParameters: {
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        'gatewayresponse.header.Content-Type': "'application/json'",
      },
      ResponseTemplates: { 'application/json': body },
    });
  });
});

describe('API-key authorizer', () => {
  const fn = api.apiKeyAuthorizer.fn;
  const fnResources = resourcesOf(fn);
  const authorizerId = api.getLogicalId(api.apiKeyAuthorizer.authorizer.node.defaultChild as never);

  test('one REQUEST authorizer on the x-api-key header, results cached 300 s, invoking the authorizer function', () => {
    // The public API's only authorizer; the web app's Cognito authorizer is on its own API (asserted below).
    const authorizers = ofType(apiResources, 'AWS::ApiGateway::Authorizer').filter(([, a]) => a.Properties.RestApiId.Ref === api.getLogicalId(api.api.node.defaultChild as never));
    expect(authorizers.map(([id]) => id)).toEqual([authorizerId]);
    const props = authorizers[0]![1].Properties;
    expect(props).toMatchObject({ Type: 'REQUEST', IdentitySource: 'method.request.header.x-api-key', AuthorizerResultTtlInSeconds: 300 });
    expect(API_KEY_AUTHORIZER.resultTtlSeconds).toBe(300);
    expect(props.AuthorizerCredentials).toBeUndefined();
    const outputs: Record<string, Json> = templateOf(fn).toJSON().Outputs;
    const arnOutput = Object.entries(outputs).find(([, o]) => JSON.stringify(o.Value) === JSON.stringify({ 'Fn::GetAtt': [logicalId(fn), 'Arn'] }))![0];
    expect(JSON.stringify(props.AuthorizerUri)).toContain(`Outputs.${arnOutput}`);
    expect(JSON.stringify(props.AuthorizerUri)).toContain('/invocations');
  });

  test('its function lives in the Console context, runs the authorizer module and only API Gateway may invoke it, for this API’s authorizers', () => {
    expect(Stack.of(fn).node.id).toBe('Console');
    expect(boundedContextOf(API_KEY_AUTHORIZER.module)).toBe('Console');
    const permissions = ofType(fnResources, 'AWS::Lambda::Permission').filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === logicalId(fn));
    expect(permissions).toHaveLength(1);
    const { Principal, SourceArn } = permissions[0]![1].Properties;
    expect(Principal).toBe('apigateway.amazonaws.com');
    expect(JSON.stringify(SourceArn)).toContain(':execute-api:');
    expect(JSON.stringify(SourceArn)).toMatch(/"\/authorizers\/\*"\]\]\}$/);
  });

  test('least privilege: GetItem on the accounts table, nothing else beyond tracing', () => {
    const roleId = fnResources[logicalId(fn)]!.Properties.Role['Fn::GetAtt'][0];
    const statements = ofType(fnResources, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    const nonTracing = statements.filter((s) => !asArray<string>(s.Action).every((a) => a.startsWith('xray:')));
    expect(nonTracing).toHaveLength(1);
    expect(nonTracing[0]!.Action).toBe('dynamodb:GetItem');
    expect(asArray(nonTracing[0]!.Resource)).toHaveLength(1);
    expect(refersToTable(nonTracing[0]!.Resource, 'accounts')).toBe(true);
    const env: Json = fnResources[logicalId(fn)]!.Properties.Environment.Variables;
    expect(Object.keys(env).sort()).toEqual(['ACCOUNTS_TABLE_NAME', 'LOG_LEVEL', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME', 'SERVICE_STAGE']);
  });

  test('it has an error alarm to the alarm topic like every other function', () => {
    const alarms = ofType(fnResources, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.MetricName === 'Errors' && a.Properties.Dimensions?.[0]?.Value?.Ref === logicalId(fn));
    expect(alarms).toHaveLength(1);
    expect(JSON.stringify(alarms[0]![1].Properties.AlarmActions)).toMatch(/ExportsOutputRefAlarmTopic[0-9A-F]{8}/);
  });
});

describe('stateful resources', () => {
  test.each(TABLE_LIST.map((t) => [t.key, t] as const))('table %s: on-demand, PITR, KMS encryption, catalogue GSIs and TTL, retained, named by CloudFormation', (_key, def) => {
    const tableId = stateful.getLogicalId(stateful.tables[def.key].node.defaultChild as never);
    expect(statefulResources[tableId]!.Properties.TableName).toBeUndefined();
    statefulT.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        GlobalSecondaryIndexes: def.gsis.length
          ? def.gsis.map((g) => ({
              IndexName: g.name,
              KeySchema: [
                { AttributeName: g.pk, KeyType: 'HASH' },
                { AttributeName: g.sk, KeyType: 'RANGE' },
              ],
              Projection: g.keysOnly ? { ProjectionType: 'KEYS_ONLY' } : g.include ? { ProjectionType: 'INCLUDE', NonKeyAttributes: g.include } : { ProjectionType: 'ALL' },
            }))
          : Match.absent(),
        TimeToLiveSpecification: def.ttlAttribute ? { AttributeName: def.ttlAttribute, Enabled: true } : Match.absent(),
      },
    });
  });

  test('every table holding an item kind that expires has TTL on expires_at', () => {
    const expiringTables = new Set(Object.values(RETENTION).filter((r) => r.seconds !== null).map((r) => r.table));
    // mail_evidence: an account's inbound bounce report expires (RETENTION.bounce_report); its evidence does not.
    expect(expiringTables).toEqual(new Set(['accounts', 'jobs', 'outreach', 'mail_evidence', 'privacy']));
    for (const key of expiringTables) {
      const tableId = stateful.getLogicalId(stateful.tables[key].node.defaultChild as never);
      expect([key, statefulResources[tableId]!.Properties.TimeToLiveSpecification]).toEqual([key, { AttributeName: 'expires_at', Enabled: true }]);
    }
  });

  test('every dead-letter queue has a depth alarm to the alarm topic, which is encrypted with a rotated key CloudWatch may use', () => {
    const topicId = stateful.getLogicalId(stateful.alarmTopic.node.defaultChild as never);
    for (const q of QUEUE_LIST) {
      const dlqId = stateful.getLogicalId(stateful.deadLetterQueues[q.key].node.defaultChild as never);
      statefulT.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
        AlarmActions: [{ Ref: topicId }],
      });
    }
    statefulT.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
    const keyId = statefulResources[topicId]!.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    expect(statefulResources[keyId]!.Properties.EnableKeyRotation).toBe(true);
    expect(JSON.stringify(statefulResources[keyId]!.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
  });

  test('exactly one table per catalogue entry', () => {
    statefulT.resourceCountIs('AWS::DynamoDB::Table', TABLE_LIST.length);
  });

  test.each(QUEUE_LIST.map((q) => [q.key, q] as const))('queue %s: SSE, catalogue visibility, DLQ with catalogue maxReceiveCount kept 14 days', (_key, def) => {
    const dlqs = ofType(statefulResources, 'AWS::SQS::Queue').filter(([, q]) => q.Properties.QueueName === `${PREFIX}-${def.key}-dlq`);
    expect(dlqs).toHaveLength(1);
    const [dlqId, dlq] = dlqs[0]!;
    expect(dlq.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    statefulT.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: `${PREFIX}-${def.key}`,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: def.visibilityTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: def.maxReceiveCount },
    });
  });

  test('every queue, DLQs included, refuses requests without TLS', () => {
    const queues = ofType(statefulResources, 'AWS::SQS::Queue').map(([id]) => id);
    // Each catalogue queue and its DLQ, and the async-failures DLQ.
    expect(queues).toHaveLength(QUEUE_LIST.length * 2 + 1);
    for (const id of queues) {
      statefulT.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  test('the directory-import bucket blocks public access, requires TLS, is encrypted and logs access', () => {
    statefulT.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: Match.anyValue() }, LogFilePrefix: 'directory-import/' },
    });
    const buckets = ofType(statefulResources, 'AWS::S3::Bucket').map(([id]) => id);
    for (const id of buckets) {
      statefulT.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });
});

describe('workers', () => {
  test.each(QUEUE_LIST.map((q) => [q.key, q] as const))('worker %s consumes its queue with the catalogue batch size and partial batch failures', (key, def) => {
    templateOf(api.workerFunctions[key]).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(api.workerFunctions[key]) },
      BatchSize: def.worker.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(`ExportsOutputFnGetAtt${pascal(key)}Queue[0-9A-F]{8}Arn`) },
    });
  });

  test(`the search worker takes one job per invocation (a timeout retries that job alone), with partial batch failures, its queue hiding a message ${SQS_VISIBILITY_PER_FUNCTION_TIMEOUT}× its timeout`, () => {
    const fn = api.workerFunctions.search;
    const mappings = ofType(resourcesOf(fn), 'AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === logicalId(fn));
    expect(mappings.map(([, m]) => [m.Properties.BatchSize, m.Properties.FunctionResponseTypes])).toEqual([[1, ['ReportBatchItemFailures']]]);
    expect(QUEUES.search.visibilityTimeoutSeconds).toBe(SQS_VISIBILITY_PER_FUNCTION_TIMEOUT * QUEUES.search.worker.timeoutSeconds);
    templateOf(fn).hasResourceProperties('AWS::Lambda::Function', Match.objectLike({ Description: 'Worker of the search queue', Timeout: QUEUES.search.worker.timeoutSeconds }));
  });

  test('one event source mapping per worker and one per DLQ', () => {
    expect(ofType(Object.fromEntries(allApiResources()), 'AWS::Lambda::EventSourceMapping')).toHaveLength(QUEUE_LIST.length * 2);
  });
});

describe('dead letters and the sweeper', () => {
  test('the dead-letter consumer reads each of the DLQs with partial batch failures, and no other queue', () => {
    const fn = api.housekeeping.deadLetterFunction;
    const mappings = ofType(resourcesOf(fn), 'AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === logicalId(fn));
    expect(mappings).toHaveLength(QUEUE_LIST.length);
    const sources = mappings.map(([, m]) => {
      expect(m.Properties).toMatchObject({ BatchSize: DEAD_LETTERS.batchSize, FunctionResponseTypes: ['ReportBatchItemFailures'] });
      return JSON.stringify(m.Properties.EventSourceArn).replace(/.*ExportsOutputFnGetAtt([A-Za-z]+)Dlq[0-9A-F]{8}Arn.*/, '$1');
    });
    expect(sources.sort()).toEqual(QUEUE_LIST.map((q) => pascal(q.key)).sort());
    // The DLQ a record came from is its eventSourceARN, whose last part is the catalogue's DLQ name.
    const names = ofType(statefulResources, 'AWS::SQS::Queue').map(([, q]) => q.Properties.QueueName);
    for (const q of QUEUE_LIST) expect(names).toContain(queueName(PREFIX, q.key, true));
  });

  test(`the sweeper runs every ${SWEEPER.rateMinutes} minutes from a schedule with no flexible window, a retry policy and a DLQ`, () => {
    const fn = api.housekeeping.sweeperFunction;
    const nestedT = templateOf(fn);
    const schedules = ofType(resourcesOf(fn), 'AWS::Scheduler::Schedule').filter(([, s]) => s.Properties.Name === `${PREFIX}-sweeper`);
    expect(schedules).toHaveLength(1);
    const schedule = schedules[0]![1].Properties;
    const dlqId = Stack.of(fn).getLogicalId(api.housekeeping.sweeperScheduleDlq.node.defaultChild as never);
    const roleId = Stack.of(fn).getLogicalId(api.housekeeping.sweeperScheduleRole.node.defaultChild as never);
    expect(schedule).toMatchObject({
      ScheduleExpression: `rate(${SWEEPER.rateMinutes} minutes)`,
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [logicalId(fn), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
        RetryPolicy: { MaximumEventAgeInSeconds: SWEEPER.rateMinutes * 60, MaximumRetryAttempts: 3 },
      },
    });
    expect(schedule.GroupName).toBeUndefined();
    nestedT.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    nestedT.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
    });
  });

  test('the sweeper schedule’s role is assumed by Scheduler for the default group only and may only invoke the sweeper and park a run in its DLQ', () => {
    const fn = api.housekeeping.sweeperFunction;
    const resources = resourcesOf(fn);
    const roleId = Stack.of(fn).getLogicalId(api.housekeeping.sweeperScheduleRole.node.defaultChild as never);
    const dlqId = Stack.of(fn).getLogicalId(api.housekeeping.sweeperScheduleDlq.node.defaultChild as never);
    const role = resources[roleId]!.Properties;
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.AssumeRolePolicyDocument.Statement).toHaveLength(1);
    const trust = role.AssumeRolePolicyDocument.Statement[0];
    expect(trust).toMatchObject({ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' } });
    expect(trust.Condition.StringEquals).toEqual({ 'aws:SourceAccount': { Ref: 'AWS::AccountId' } });
    expect(JSON.stringify(trust.Condition.ArnEquals['aws:SourceArn'])).toContain(':schedule-group/default"');
    const statements = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    const fnArn = { 'Fn::GetAtt': [logicalId(fn), 'Arn'] };
    expect(statements).toEqual(
      expect.arrayContaining([
        { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: [fnArn, { 'Fn::Join': ['', [fnArn, ':*']] }] },
        { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      ]),
    );
    expect(statements).toHaveLength(2);
  });
});

describe('mailbox providers (issue 11)', () => {
  const secretId = stateful.getLogicalId(stateful.mailboxProviders.node.defaultChild as never);
  const connectRoutes = ROUTES.filter((r) => MAILBOX_CONNECT_MODULES.includes(r.module));
  const envOf = (fn: ServiceFunction): Json => resourcesOf(fn)[logicalId(fn)]!.Properties.Environment.Variables;
  /** A CloudFormation string as text, references written as `{Ref}` / `{GetAtt}`. */
  const text = (value: unknown): string =>
    typeof value === 'string' ? value : (value as Json)['Fn::Join'][1].map((part: unknown) => (typeof part === 'string' ? part : JSON.stringify(part))).join('');

  test('the OAuth clients live in one retained Secrets Manager secret, readable by ARN only by the connect (app, console), callback, create, sending and poller functions', () => {
    expect(statefulResources[secretId]).toMatchObject({ Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' });
    expect(connectRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /oauth/callback/', 'POST /api/app/v1/sending-accounts/connect/', 'POST /api/console/v1/accounts/{id}/sending-accounts/connect/']);
    const readers = allFunctions.filter(({ fn }) => {
      const env: Json = resourcesOf(fn)[logicalId(fn)]!.Properties.Environment.Variables;
      return env.MAILBOX_PROVIDERS_SECRET_ARN !== undefined;
    });
    // The sending worker refreshes a mailbox's access token; the console's create connects a google or
    // microsoft account through the emulated consent on the twin (refused before any read in AWS).
    const createSendingAccount = ROUTES.find((r) => r.module === 'functions/console/create-sending-account.ts')!;
    expect(readers.map((r) => r.name).sort()).toEqual([...connectRoutes.map((r) => `${r.method} ${r.path}`), `${createSendingAccount.method} ${createSendingAccount.path}`, 'mailbox poller', 'worker sending'].sort());
    for (const { name, fn } of readers) {
      const roleId = Stack.of(fn).getLogicalId(fn.role!.node.defaultChild as never);
      const statements = ofType(resourcesOf(fn), 'AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
      const grant = statements.filter((s) => JSON.stringify(s.Action).includes('secretsmanager:GetSecretValue') && JSON.stringify(s.Resource).includes('MailboxProviders'));
      expect([name, grant.length]).toEqual([name, 1]);
      expect(JSON.stringify(grant[0]!.Resource)).not.toContain('*');
    }
  });

  test('the callback is public (no IAM, no authorizer, no API key) on the public API, throttled at the stage, and no console route is left for it', () => {
    const callback = ROUTES.find((r) => r.module === 'functions/oauth/callback.ts')!;
    expect([callback.method, callback.path, callback.auth, callback.throttle, boundedContextOf(callback.module)]).toEqual(['GET', '/oauth/callback/', 'public', { perMinute: 120, burst: 20 }, 'Console']);
    const paths = resourcePaths();
    const methods = ofType(apiResources, 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod === 'GET' && paths.get(m.Properties.ResourceId.Ref) === '/oauth/callback');
    expect(methods).toHaveLength(1);
    const method = methods[0]![1].Properties;
    expect(method).toMatchObject({ AuthorizationType: 'NONE', RestApiId: { Ref: api.getLogicalId(api.api.node.defaultChild as never) } });
    expect([method.ApiKeyRequired, method.AuthorizerId]).toEqual([undefined, undefined]);
    expect(ROUTES.filter((r) => r.path.includes('oauth') && r.auth !== 'public')).toEqual([]);
  });

  test('the providers are given the callback on the web app\'s domain (where the start set the binding cookie), which lands on the app\'s page', () => {
    for (const route of connectRoutes) {
      const env = envOf(api.routeFunctions.get(route)!);
      const redirect = text(env.OAUTH_REDIRECT_URI);
      expect([route.path, redirect.startsWith('https://'), redirect.endsWith('/oauth/callback/'), redirect.includes('execute-api')]).toEqual([route.path, true, true, false]);
      expect([route.path, text(env.WEB_APP_URL).endsWith('/app/'), text(env.WEB_APP_URL).slice(0, -'app/'.length)]).toEqual([route.path, true, redirect.slice(0, -'oauth/callback/'.length)]);
    }
  });

  test(`the poller runs every ${MAILBOX_POLL.rateMinutes} minute from its own schedule, whose role may only invoke it and park a run`, () => {
    const fn = api.mailboxPoll.pollFunction;
    const resources = resourcesOf(fn);
    const roleId = Stack.of(fn).getLogicalId(api.mailboxPoll.scheduleRole.node.defaultChild as never);
    const schedule = ofType(resources, 'AWS::Scheduler::Schedule').find(([, s]) => s.Properties.Name === `${PREFIX}-mailbox-poll`)![1].Properties;
    expect(schedule).toMatchObject({
      ScheduleExpression: `rate(${MAILBOX_POLL.rateMinutes} minute)`,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: { 'Fn::GetAtt': [logicalId(fn), 'Arn'] }, RoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] }, RetryPolicy: { MaximumEventAgeInSeconds: MAILBOX_POLL.rateMinutes * 60 } },
    });
    const trust = resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement[0];
    expect(trust).toMatchObject({ Principal: { Service: 'scheduler.amazonaws.com' } });
    const statements = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    const fnArn = { 'Fn::GetAtt': [logicalId(fn), 'Arn'] };
    expect(statements).toEqual(expect.arrayContaining([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: [fnArn, { 'Fn::Join': ['', [fnArn, ':*']] }] }]));
    expect(statements).toHaveLength(2);
    expect(resources[logicalId(fn)]!.Properties.Timeout).toBe(MAILBOX_POLL.timeoutSeconds);
  });
});

describe('test emails', () => {
  const testRoutes = ROUTES.filter((r) => r.path.startsWith('/api/public/v1/test-emails/'));
  const fnOf = (method: string) => api.routeFunctions.get(testRoutes.find((r) => r.method === method)!)!;

  test('POST and GET are routed with no gateway key check and no authorizer (the handler answers 401), at 1 per minute burst 2 per key under a stage ceiling', () => {
    expect(testRoutes.map((r) => [r.method, r.path, r.auth, r.throttle, r.edgeThrottle])).toEqual([
      ['POST', '/api/public/v1/test-emails/', 'handler_key', { perMinute: 1, burst: 2 }, { perMinute: 60, burst: 10 }],
      ['GET', '/api/public/v1/test-emails/{id}/', 'handler_key', { perMinute: 1, burst: 2 }, { perMinute: 60, burst: 10 }],
    ]);
    for (const route of testRoutes) {
      const method = ofType(apiResources, 'AWS::ApiGateway::Method').find(([, m]) => m.Properties.HttpMethod === route.method && JSON.stringify(m.Properties.ResourceId).includes('testemails'))![1].Properties;
      expect([route.method, method.ApiKeyRequired, method.AuthorizationType, method.AuthorizerId]).toEqual([route.method, undefined, 'NONE', undefined]);
    }
  });

  test('create reads accounts, writes only the outreach table and sends only to the sending queue; get only reads', () => {
    const create = fnOf('POST');
    const get = fnOf('GET');
    const unconditioned = (fn: ServiceFunction, table: TableKey) =>
      [...new Set(statementsOf(fn).filter((s) => !s.Condition && asArray(s.Resource).some((r) => refersToTable(r, table))).flatMap((s) => asArray<string>(s.Action)))].sort();
    expect(unconditioned(create, 'accounts')).toEqual([...TABLE_READ_ACTIONS].sort());
    expect(unconditioned(get, 'accounts')).toEqual([...TABLE_READ_ACTIONS].sort());
    expect(actionsOn(create, (r) => refersToTable(r, 'outreach'))).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
    expect(actionsOn(get, (r) => refersToTable(r, 'outreach'))).toEqual([...TABLE_READ_ACTIONS].sort());
    const sqs = (fn: ServiceFunction) => statementsOf(fn).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('sqs:')));
    expect(sqs(create).map((s) => JSON.stringify(s.Resource))).toEqual([expect.stringMatching(/SendingQueue/)]);
    expect(sqs(get)).toEqual([]);
    for (const fn of [create, get]) {
      // The per-key token bucket (UpdateItem on RATE# partitions) and the key's "last used" (one attribute).
      const updates = statementsOf(fn).filter((s) => asArray<string>(s.Action).includes('dynamodb:UpdateItem') && asArray(s.Resource).some((r) => refersToTable(r, 'accounts')));
      expect(updates).toEqual([RATE_BUCKETS, KEY_USE]);
      const actions = statementsOf(fn).flatMap((s) => asArray<string>(s.Action));
      expect(actions.filter((a) => a.startsWith('ses:') || a.startsWith('scheduler:') || a.startsWith('s3:'))).toEqual([]);
    }
  });

  test('the test inbox and banner come from CDK context: create records the inbox, the sending worker appends the banner', () => {
    const configured = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const stacks = createServiceStacks(configured, { stage: STAGE, testInboxAddress: 'pilot-inbox@seller.test', testEmailBanner: 'Pilot test.' });
    const envOf = (fn: ServiceFunction) => Template.fromStack(Stack.of(fn)).toJSON().Resources[Stack.of(fn).getLogicalId(fn.node.defaultChild as never)].Properties.Environment.Variables;
    const create = [...stacks.api.routeFunctions].find(([r]) => r.module === 'functions/test-emails/create.ts')![1];
    expect(envOf(create).TEST_INBOX_ADDRESS).toBe('pilot-inbox@seller.test');
    expect(envOf(stacks.api.workerFunctions.sending).TEST_EMAIL_BANNER).toBe('Pilot test.');
    expect(envOf(fnOf('POST')).TEST_INBOX_ADDRESS).toBeUndefined(); // none configured: creation answers 503
  });

  test('the sending worker that sends them may schedule their timeout and send mail', () => {
    expect(QUEUE_LIST.find((q) => q.key === 'sending')!.worker.bindings).toMatchObject({ scheduler: true, mail: true, tables: { outreach: 'readwrite' } });
  });
});

describe('published contract', () => {
  const contractRoutes = ROUTES.filter((r) => r.module.startsWith('functions/openapi/'));

  test('the document and the reference page are public, throttled at the stage, in the App context', () => {
    expect(contractRoutes.map((r) => [r.method, r.path, r.auth, r.throttle, boundedContextOf(r.module)])).toEqual([
      ['GET', '/api/public/v1/openapi.json', 'public', { perMinute: 600, burst: 50 }, 'App'],
      ['GET', '/docs/', 'public', { perMinute: 600, burst: 50 }, 'App'],
      ['GET', '/docs/scalar.js', 'public', { perMinute: 600, burst: 50 }, 'App'],
    ]);
  });

  test('their functions read nothing and send nothing: no DynamoDB, SQS, Scheduler or secret statements', () => {
    for (const route of contractRoutes) {
      const actions = statementsOf(api.routeFunctions.get(route)!).flatMap((s) => asArray<string>(s.Action));
      expect([route.path, actions.filter((a) => /^(dynamodb|sqs|scheduler|secretsmanager|ses|iam):/.test(a))]).toEqual([route.path, []]);
    }
  });
});

describe('deep search', () => {
  const deepRoutes = ROUTES.filter((r) => r.path.startsWith('/api/public/v1/deep-search/'));
  const fnOf = (method: string) => api.routeFunctions.get(deepRoutes.find((r) => r.method === method)!)!;

  test('POST and GET carry docs/decisions.md#limits throttles (4/min burst 2, 3,600/min burst 100) behind the API key, in the Search context', () => {
    expect(deepRoutes.map((r) => [r.method, r.path, r.auth, r.throttle, boundedContextOf(r.module)])).toEqual([
      ['POST', '/api/public/v1/deep-search/', 'api_key', { perMinute: 4, burst: 2 }, 'Search'],
      ['GET', '/api/public/v1/deep-search/{job_id}/', 'api_key', { perMinute: 3600, burst: 100 }, 'Search'],
    ]);
  });

  test('create reserves (accounts, jobs) and sends only to the search queue; polling only reads; neither touches the directory', () => {
    const create = fnOf('POST');
    const get = fnOf('GET');
    for (const key of ['accounts', 'jobs'] as const) {
      expect(actionsOn(create, (r) => refersToTable(r, key))).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
      expect(actionsOn(get, (r) => refersToTable(r, key))).toEqual([...TABLE_READ_ACTIONS].sort());
    }
    for (const fn of [create, get]) expect(actionsOn(fn, (r) => refersToTable(r, 'directory'))).toEqual([]);
    const sqs = (fn: ServiceFunction) => statementsOf(fn).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('sqs:')));
    expect(sqs(create).map((s) => JSON.stringify(s.Resource))).toEqual([expect.stringMatching(/SearchQueue/)]);
    expect(sqs(get)).toEqual([]);
  });

  test('the search worker that runs it reads the directory (for the research) and its source, and queues webhooks', () => {
    expect(QUEUE_LIST.find((q) => q.key === 'search')!.worker.bindings).toMatchObject({ tables: { directory: 'read', jobs: 'readwrite' }, queues: { webhooks: 'send' }, directorySource: true });
  });
});

describe('agentic search', () => {
  const agenticRoutes = ROUTES.filter((r) => r.path.startsWith('/api/public/v1/agentic-search/'));
  const fnOf = (path: string) => api.routeFunctions.get(agenticRoutes.find((r) => r.path === `/api/public/v1/agentic-search/${path}`)!)!;
  const queuesSentTo = (fn: ServiceFunction) =>
    statementsOf(fn)
      .filter((s) => asArray<string>(s.Action).includes('sqs:SendMessage'))
      .flatMap((s) => [...JSON.stringify(s.Resource).matchAll(/(Search|Webhooks|Sending|Drafting|Timers)Queue/g)].map((m) => m[1]))
      .sort();

  test('three API-key routes with docs/decisions.md#limits throttles: POST 2/min burst 2, poll 3,600/min burst 100, cancel 60/min burst 10', () => {
    expect(agenticRoutes.map((r) => [r.method, r.path, r.auth, r.throttle])).toEqual([
      ['POST', '/api/public/v1/agentic-search/', 'api_key', { perMinute: 2, burst: 2 }],
      ['GET', '/api/public/v1/agentic-search/{job_id}/', 'api_key', { perMinute: 3600, burst: 100 }],
      ['POST', '/api/public/v1/agentic-search/{job_id}/cancel/', 'api_key', { perMinute: 60, burst: 10 }],
    ]);
  });

  test('create writes accounts and jobs and sends only the first step; poll only reads; cancel ends jobs and queues only the webhook', () => {
    const rw = [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort();
    for (const [path, access, queues] of [
      ['', rw, ['Search']],
      ['{job_id}/', [...TABLE_READ_ACTIONS].sort(), []],
      ['{job_id}/cancel/', rw, ['Webhooks']],
    ] as const) {
      const fn = fnOf(path);
      expect([path, actionsOn(fn, (r) => refersToTable(r, 'accounts')), actionsOn(fn, (r) => refersToTable(r, 'jobs'))]).toEqual([path, access, access]);
      expect(actionsOn(fn, (r) => refersToTable(r, 'outreach'))).toEqual([]);
      expect(queuesSentTo(fn)).toEqual(queues);
    }
  });

  test('the search worker runs the steps: it sends the next step to its own queue and the webhook, nothing else', () => {
    expect(queuesSentTo(api.workerFunctions.search)).toEqual(['Search', 'Webhooks']);
  });
});

describe('sequences', () => {
  const sequenceRoutes = ROUTES.filter((r) => r.path.startsWith('/api/public/v1/sequences/'));
  const fnOf = (method: string, suffix: string) => api.routeFunctions.get(sequenceRoutes.find((r) => r.method === method && r.path.endsWith(suffix))!)!;
  const sqsTargets = (fn: ServiceFunction) => statementsOf(fn).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('sqs:'))).map((s) => JSON.stringify(s.Resource));
  const schedulerActions = (fn: ServiceFunction) => statementsOf(fn).flatMap((s) => asArray<string>(s.Action)).filter((a) => a.startsWith('scheduler:'));

  test('seven routes behind the API key: accepting 10/min burst 5, approve and cancel 120/min burst 20, reads 600/min burst 50', () => {
    expect(sequenceRoutes.map((r) => [r.method, r.path.slice('/api/public/v1/'.length), r.auth, r.throttle])).toEqual([
      ['POST', 'sequences/', 'api_key', { perMinute: 10, burst: 5 }],
      ['GET', 'sequences/', 'api_key', { perMinute: 600, burst: 50 }],
      ['GET', 'sequences/{id}/', 'api_key', { perMinute: 600, burst: 50 }],
      ['POST', 'sequences/{id}/contacts/', 'api_key', { perMinute: 10, burst: 5 }],
      ['POST', 'sequences/{id}/approve/', 'api_key', { perMinute: 120, burst: 20 }],
      ['POST', 'sequences/{id}/cancel/', 'api_key', { perMinute: 120, burst: 20 }],
      ['GET', 'sequences/{id}/replies/', 'api_key', { perMinute: 600, burst: 50 }],
    ]);
  });

  test('create and add-contacts reserve credits, write outreach, read the directory and send only to the drafting queue; no schedules', () => {
    for (const fn of [fnOf('POST', 'sequences/'), fnOf('POST', '/contacts/')]) {
      expect(actionsOn(fn, (r) => refersToTable(r, 'accounts'))).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
      expect(actionsOn(fn, (r) => refersToTable(r, 'outreach'))).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
      expect(actionsOn(fn, (r) => refersToTable(r, 'directory'))).toEqual([...TABLE_READ_ACTIONS].sort());
      expect(sqsTargets(fn)).toEqual([expect.stringMatching(/DraftingQueue/)]);
      expect(schedulerActions(fn)).toEqual([]);
    }
  });

  test('approve books slots (schedules, the sending queue); cancel settles and deletes schedules but sends nothing; reads only read', () => {
    const approve = fnOf('POST', '/approve/');
    expect(actionsOn(approve, (r) => refersToTable(r, 'accounts'))).toEqual([...TABLE_READ_ACTIONS].sort());
    expect(sqsTargets(approve)).toEqual([expect.stringMatching(/SendingQueue/)]);
    expect(schedulerActions(approve)).toContain('scheduler:CreateSchedule');
    const cancel = fnOf('POST', '/cancel/');
    expect(actionsOn(cancel, (r) => refersToTable(r, 'accounts'))).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
    expect(sqsTargets(cancel)).toEqual([]);
    expect(schedulerActions(cancel)).toContain('scheduler:DeleteSchedule');
    for (const fn of [fnOf('GET', 'sequences/'), fnOf('GET', '{id}/'), fnOf('GET', '/replies/')]) {
      expect(actionsOn(fn, (r) => refersToTable(r, 'outreach'))).toEqual([...TABLE_READ_ACTIONS].sort());
      expect([sqsTargets(fn), schedulerActions(fn)]).toEqual([[], []]);
    }
  });

  test('the inbound-mail worker may delete the schedules of the steps a reply or bounce stops, in the service group only', () => {
    const policies = ofType(statefulResources, 'AWS::IAM::Policy').map(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    const inbound = policies.find((statements) => statements.some((s) => JSON.stringify(s.Resource).includes('/inbound/*')))!;
    const scheduler = inbound.filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('scheduler:')));
    expect(scheduler).toHaveLength(1);
    expect(asArray<string>(scheduler[0]!.Action)).toContain('scheduler:DeleteSchedule');
    expect(JSON.stringify(scheduler[0]!.Resource)).toContain(`:schedule/${PREFIX}-schedules/*`);
  });
});

describe('IAM least privilege', () => {
  test('each function gets exactly the table actions its bindings allow: read-only bindings never write', () => {
    let readOnlyChecked = 0;
    for (const { name, fn, bindings } of allFunctions) {
      const statements = statementsOf(fn);
      for (const table of TABLE_LIST) {
        const onTable = statements.filter((s) => asArray(s.Resource).some((r) => refersToTable(r, table.key)));
        const actions = new Set(onTable.filter((s) => !s.Condition).flatMap((s) => asArray<string>(s.Action)));
        // The only conditioned table grants, both UpdateItem on accounts: per-key token buckets (RATE#
        // partitions) and a key's "last used" (that one attribute).
        const conditioned = onTable.filter((s) => s.Condition);
        expect([name, table.key, conditioned]).toEqual([
          name,
          table.key,
          table.key === 'accounts' ? [...(bindings.keyThrottle ? [RATE_BUCKETS] : []), ...(bindings.keyUse ? [KEY_USE] : [])] : [],
        ]);
        const mode = bindings.tables?.[table.key];
        const expected = mode === 'read' ? [...TABLE_READ_ACTIONS] : mode === 'readwrite' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : [];
        expect([name, table.key, [...actions].sort()]).toEqual([name, table.key, expected.sort()]);
        if (mode === 'read') {
          expect(actions.has('dynamodb:PutItem')).toBe(false);
          readOnlyChecked++;
        }
      }
    }
    expect(readOnlyChecked).toBeGreaterThan(0);
  });

  test('index grants name the catalogue GSIs instead of index/*', () => {
    for (const { fn } of allFunctions) {
      for (const s of statementsOf(fn)) {
        if (!asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:'))) continue;
        for (const r of asArray(s.Resource)) expect(JSON.stringify(r)).not.toContain('/index/*');
      }
    }
  });

  test('only scheduler-bound functions manage schedules, only in the service group, and may pass only the scheduler role', () => {
    const schedulerRoleExport = /ExportsOutputFnGetAttSchedulerRole[0-9A-F]{8}Arn/;
    for (const { name, fn, bindings } of allFunctions) {
      const statements = statementsOf(fn);
      const scheduler = statements.filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('scheduler:')));
      const passRole = statements.filter((s) => asArray<string>(s.Action).includes('iam:PassRole'));
      if (!bindings.scheduler) {
        expect([name, scheduler, passRole]).toEqual([name, [], []]);
        continue;
      }
      expect(scheduler).toHaveLength(1);
      expect(JSON.stringify(scheduler[0]!.Resource)).toContain(`:schedule/${PREFIX}-schedules/*`);
      expect(passRole).toHaveLength(1);
      expect(JSON.stringify(passRole[0]!.Resource)).toMatch(schedulerRoleExport);
      expect(passRole[0]!.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    }
  });

  test('only mail-bound functions may send through SES, and only api-key-bound ones may touch API keys', () => {
    for (const { name, fn, bindings } of allFunctions) {
      const actions = statementsOf(fn).flatMap((s) => asArray<string>(s.Action));
      expect([name, actions.includes('ses:SendEmail')]).toEqual([name, Boolean(bindings.mail)]);
      expect([name, actions.includes('apigateway:POST')]).toEqual([name, Boolean(bindings.apiKeys)]);
    }
  });

  test('SES sending names the configured identities and limits ses:FromAddress to them', () => {
    const mailFns = allFunctions.filter((f) => f.bindings.mail);
    expect(mailFns.length).toBeGreaterThan(0);
    for (const { name, fn } of mailFns) {
      const ses = statementsOf(fn).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('ses:')));
      expect([name, ses.length]).toEqual([name, 1]);
      const resources = JSON.stringify(ses[0]!.Resource);
      for (const identity of SES_IDENTITIES) expect(resources).toContain(`:identity/${identity}"`);
      expect(resources).not.toContain('identity/*');
      expect(ses[0]!.Condition).toEqual({ StringLike: { 'ses:FromAddress': ['*@mail.example.com', 'sender@other.example'] } });
    }
  });

  test('without sesIdentities no function may send through SES', () => {
    const bare = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const stacks = createServiceStacks(bare, { stage: STAGE });
    const sending = stacks.api.workerFunctions.sending;
    const statements = ofType(Template.fromStack(Stack.of(sending)).toJSON().Resources, 'AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    expect(statements.flatMap((s) => asArray<string>(s.Action)).filter((a) => a.startsWith('ses:'))).toEqual([]);
  });

  test('API-key functions: create keys, delete keys, find a key or the plan by name, add keys to this stack’s plan by id (the routes that create them; the sweeper only rolls keys back) — nothing else of API Gateway', () => {
    const keyFns = allFunctions.filter((f) => f.bindings.apiKeys);
    expect(keyFns.length).toBeGreaterThan(0);
    const planId = api.getLogicalId(api.node.findChild('Api').node.findChild('UsagePlan').node.defaultChild as never);
    const releaseOnly = keyFns.filter((f) => !f.name.startsWith('POST ') && !f.name.startsWith('DELETE '));
    expect(releaseOnly.map((f) => f.name)).toEqual(['sweeper']);
    for (const { name, fn } of releaseOnly) {
      const grants = statementsOf(fn)
        .filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('apigateway:')))
        .flatMap((s) => asArray(s.Resource).map((r) => [asArray<string>(s.Action).join(','), JSON.stringify(r).replace(/.*::(\/[^"]*)".*/, '$1')]));
      expect([name, grants.sort()]).toEqual([name, [['apigateway:DELETE', '/apikeys/*'], ['apigateway:GET', '/apikeys'], ['apigateway:GET', '/usageplans'], ['apigateway:POST', '/apikeys']]]);
    }
    for (const { name, fn } of keyFns.filter((f) => !releaseOnly.includes(f))) {
      const grants = statementsOf(fn)
        .filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('apigateway:')))
        .flatMap((s) => asArray(s.Resource).map((r) => [asArray<string>(s.Action).join(','), JSON.stringify(r).replace(/.*::(\/[^"]*)".*/, '$1')]));
      expect([name, grants.sort()]).toEqual([
        name,
        [
          ['apigateway:DELETE', '/apikeys/*'],
          ['apigateway:GET', '/apikeys'],
          ['apigateway:GET', '/usageplans'],
          ['apigateway:POST', '/apikeys'],
          ['apigateway:POST', '/usageplans/'],
        ],
      ]);
      const planGrant = statementsOf(fn).find((s) => JSON.stringify(s.Resource).includes('/usageplans/'))!;
      expect(JSON.stringify(planGrant.Resource)).toContain(`"::/usageplans/",{"Ref":"${planId}"},"/keys"`);
    }
  });

  /**
   * The measured form of least privilege: every `*` in a resource of any IAM statement of either stack is
   * one of these, each for a reason the service imposes.
   */
  const WILDCARD_EXCEPTIONS: { pattern: RegExp; actions: RegExp; why: string }[] = [
    { pattern: /^\*$/, actions: /^xray:Put(TraceSegments|TelemetryRecords)$/, why: 'X-Ray accepts no resource narrower than *' },
    { pattern: /:schedule\/people-outreach-test-schedules\/\*$/, actions: /^scheduler:/, why: 'schedule names are made at run time, inside the service group' },
    { pattern: /::\/apikeys\/\*$/, actions: /^apigateway:DELETE$/, why: 'API key ids are generated by API Gateway' },
    { pattern: /\/inbound\/\*$/, actions: /^s3:GetObject$/, why: 'SES names each stored inbound message' },
    { pattern: /\/index\/\*$/, actions: /^s3:GetObject$/, why: 'search index artifacts are named by the directory version an import produces' },
    { pattern: /\/index\/\*$/, actions: /^s3:(PutObject|DeleteObject)$/, why: 'search index artifacts are named by the directory version (finalize deletes superseded ones)' },
    { pattern: /\/test\/\*\/api\/console\/v1\/\*$/, actions: /^execute-api:Invoke$/, why: 'operators call every console method of this stage' },
    { pattern: /^X:\*$/, actions: /^lambda:InvokeFunction$/, why: 'Scheduler may invoke the sweeper (or mailbox poller) function and its versions and aliases' },
  ];

  test('no IAM statement has a wildcard resource except the named exceptions', () => {
    const flatten = (r: unknown): string =>
      typeof r === 'string' ? r : JSON.stringify(r).replace(/\{"Ref":"[^"]+"\}|\{"Fn::[^{}]*\}/g, 'X').replace(/"/g, '').replace(/\{Fn::Join:\[,\[/g, '').replace(/,/g, '').replace(/\]\]\}/g, '');
    const documents: Json[] = [];
    for (const [, r] of [...allApiResources(), ...Object.entries(statefulResources)]) {
      if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') documents.push(r.Properties.PolicyDocument);
      if (r.Type === 'AWS::IAM::Role') for (const p of r.Properties.Policies ?? []) documents.push(p.PolicyDocument);
    }
    expect(documents.length).toBeGreaterThan(ROUTES.length);
    const used = new Set<string>();
    const offenders: string[] = [];
    for (const s of documents.flatMap((d) => d.Statement as Json[])) {
      for (const resource of asArray(s.Resource).map(flatten).filter((r) => r.includes('*'))) {
        const rule = WILDCARD_EXCEPTIONS.find((e) => e.pattern.test(resource) && asArray<string>(s.Action).every((a) => e.actions.test(a)));
        if (rule) used.add(rule.why);
        else offenders.push(`${asArray<string>(s.Action).join(',')} on ${resource}`);
      }
    }
    expect(offenders).toEqual([]);
    expect([...used].sort()).toEqual(WILDCARD_EXCEPTIONS.map((e) => e.why).sort());
  });

  test('the scheduler role is assumable by EventBridge Scheduler only and may only send to the timers queue and its DLQ', () => {
    const roleId = stateful.getLogicalId(stateful.schedulerRole.node.defaultChild as never);
    const timersId = stateful.getLogicalId(stateful.queues.timers.node.defaultChild as never);
    const timersDlqId = stateful.getLogicalId(stateful.deadLetterQueues.timers.node.defaultChild as never);
    const role = statefulResources[roleId]!.Properties;
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toBeUndefined();
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' } }),
    ]);
    const statements = ofType(statefulResources, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: expect.any(Array) }]);
    expect(statements[0].Resource).toHaveLength(2);
    expect(statements[0].Resource).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [timersId, 'Arn'] }, { 'Fn::GetAtt': [timersDlqId, 'Arn'] }]));
  });
});

describe('cdk-nag (AwsSolutions and Serverless)', () => {
  test('reports no unacknowledged finding, error or warning, in either stack', () => {
    // cdk-nag 3 is a policy-validation plugin: findings are not annotations (Annotations.findError sees
    // none); validateScope() is the pack's documented direct entry point, run here on the synthesised tree.
    for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
      const report = pack.validateScope(app);
      const findings = report.violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
      expect(findings).toEqual([]);
      expect(report.success).toBe(true);
    }
  });

  test('an unacknowledged Serverless finding fails synthesis too', () => {
    const probe = new App();
    new Queue(new Stack(probe, 'Probe'), 'PlainQueue', { enforceSSL: true });
    Validations.of(probe).addPlugins(new ServerlessChecks(probe));
    expect(() => probe.synth()).toThrow(/Serverless-SQSRedrivePolicy/);
  });

  test('every API stage has a default method throttle (the ceiling of methods without their own)', () => {
    for (const restApi of [api.api, api.appApi]) {
      apiT.hasResourceProperties('AWS::ApiGateway::Stage', {
        RestApiId: { Ref: api.getLogicalId(restApi.node.defaultChild as never) },
        MethodSettings: Match.arrayWith([
          Match.objectLike({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: STAGE_METHOD_CEILING.rateLimit, ThrottlingBurstLimit: STAGE_METHOD_CEILING.burstLimit }),
        ]),
      });
    }
  });

  test('an unacknowledged finding fails synthesis', () => {
    const probe = new App();
    new Queue(new Stack(probe, 'Probe'), 'PlainQueue');
    Validations.of(probe).addPlugins(new AwsSolutionsChecks(probe));
    expect(() => probe.synth()).toThrow(/AwsSolutions-SQS/);
  });

  test('bin/app.ts synthesises both stacks with both nag packs attached (bundling skipped)', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-'));
    try {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [], stage: 'ci' }),
        },
      });
      expect([result.status, result.stderr]).toEqual([0, expect.any(String)]);
      expect(existsSync(join(outdir, 'people-outreach-ci-stateful.template.json'))).toBe(true);
      expect(existsSync(join(outdir, 'people-outreach-ci-api.template.json'))).toBe(true);
      const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
      // A clean run reports no plugin at all, so the attachment itself is read from the app.
      expect(readFileSync(join(REPO_ROOT, 'bin/app.ts'), 'utf8')).toContain('Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));');
      expect(report.pluginReports.flatMap((p: Json) => p.violations ?? [])).toEqual([]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('per-source rate limits (AWS WAF on the public API stage, issue 30)', () => {
  const acls = ofType(apiResources, 'AWS::WAFv2::WebACL');
  const [aclId, acl] = acls[0] ?? ['', {}];
  const path = (regexString: string) => ({ RegexMatchStatement: { FieldToMatch: { UriPath: {} }, RegexString: regexString, TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }] } });
  const method = (m: string) => ({ ByteMatchStatement: { FieldToMatch: { Method: {} }, PositionalConstraint: 'EXACTLY', SearchString: m, TextTransformations: [{ Priority: 0, Type: 'NONE' }] } });
  const ST = `^(/${STAGE})?`;

  test('one REGIONAL web ACL that allows by default and refuses with 429 and API Gateway’s throttle body', () => {
    expect(acls).toHaveLength(1);
    expect(acl.Properties).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      CustomResponseBodies: { TooManyRequests: { ContentType: 'APPLICATION_JSON', Content: '{"message":"Too Many Requests"}' } },
    });
  });

  test('one rate-based rule per catalogue limit, per source IP, scoped down to its whole decoded path (anchored regex, never CONTAINS) and method', () => {
    const U = `${ST}/api/public/v1/u/[^/]+/?$`;
    const PRIVACY = `${ST}/api/public/v1/privacy-requests/?$`;
    const PRIVACY_LINKS = [`${ST}/api/public/v1/privacy-requests/[^/]+/?$`, `${ST}/api/public/v1/privacy-requests/[^/]+/confirm/?$`];
    const expected: { name: string; limit: number; window?: number; scope: Json }[] = [
      { name: SOURCE_RATE_LIMITS.unsubscribe.name, limit: SOURCE_RATE_LIMITS.unsubscribe.limit, scope: { AndStatement: { Statements: [path(U), method('GET')] } } },
      { name: SOURCE_RATE_LIMITS.oneClickUnsubscribe.name, limit: SOURCE_RATE_LIMITS.oneClickUnsubscribe.limit, scope: { AndStatement: { Statements: [path(U), method('POST')] } } },
      { name: SOURCE_RATE_LIMITS.openPixel.name, limit: SOURCE_RATE_LIMITS.openPixel.limit, scope: path(`${ST}/api/public/v1/o/[^/]+/?$`) },
      { name: SOURCE_RATE_LIMITS.testEmails.name, limit: SOURCE_RATE_LIMITS.testEmails.limit, scope: path(`${ST}/api/public/v1/test-emails/.*$`) },
      { name: SOURCE_RATE_LIMITS.oauthCallback.name, limit: SOURCE_RATE_LIMITS.oauthCallback.limit, scope: path(`${ST}/oauth/callback/?$`) },
      { name: SOURCE_RATE_LIMITS.privacyRequests.name, limit: SOURCE_RATE_LIMITS.privacyRequests.limit, window: 300, scope: { AndStatement: { Statements: [path(PRIVACY), method('POST')] } } },
      { name: SOURCE_RATE_LIMITS.privacyLinks.name, limit: SOURCE_RATE_LIMITS.privacyLinks.limit, scope: { OrStatement: { Statements: PRIVACY_LINKS.map(path) } } },
      {
        name: SOURCE_RATE_LIMITS.apiKey.name,
        limit: SOURCE_RATE_LIMITS.apiKey.limit,
        scope: {
          AndStatement: {
            Statements: [
              path(`${ST}/api/public/v1/.*$`),
              { NotStatement: { Statement: { OrStatement: { Statements: [U, `${ST}/api/public/v1/o/[^/]+/?$`, `${ST}/api/public/v1/test-emails/.*$`, `${ST}/api/public/v1/openapi\\.json$`, PRIVACY, ...PRIVACY_LINKS].map(path) } } } },
            ],
          },
        },
      },
    ];
    // The page 600/min, the pixel 3,000/min, the OAuth callback 120/min, the privacy links 300/min stage-wide: a
    // fifth per source; a new privacy request (it mails a message) 10 in 5 minutes; the one-click POST and the
    // API-key routes a tenth of the stage ceiling (1,000/s).
    expect(expected.map((e) => e.limit)).toEqual([120, 6000, 600, 12, 24, 10, 60, 6000]);
    const rules: Json[] = acl.Properties.Rules;
    expect(rules).toHaveLength(SOURCE_RATE_LIMIT_LIST.length);
    expected.forEach((e, priority) => {
      expect(rules[priority]).toEqual({
        Name: e.name,
        Priority: priority,
        Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'TooManyRequests' } } },
        Statement: { RateBasedStatement: { Limit: e.limit, EvaluationWindowSec: e.window ?? 60, AggregateKeyType: 'IP', ScopeDownStatement: e.scope } },
        VisibilityConfig: { CloudWatchMetricsEnabled: true, MetricName: `${PREFIX}-${e.name}`, SampledRequestsEnabled: true },
      });
    });
    expect(JSON.stringify(rules)).not.toContain('CONTAINS');
  });

  test('the web ACL is associated with the public API’s stage, and with nothing else', () => {
    const associations = ofType(apiResources, 'AWS::WAFv2::WebACLAssociation');
    expect(associations).toHaveLength(1);
    const { ResourceArn, WebACLArn } = associations[0]![1].Properties;
    expect(WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const arn = JSON.stringify(ResourceArn);
    expect(arn).toContain(`:apigateway:`);
    expect(arn).toContain(`"::/restapis/",{"Ref":"${api.getLogicalId(api.api.node.defaultChild as never)}"},"/stages/",{"Ref":"${api.getLogicalId(api.api.deploymentStage.node.defaultChild as never)}"}]`);
    expect(arn).not.toContain(api.getLogicalId(api.appApi.node.defaultChild as never));
  });

  test('refused requests only are logged, to an aws-waf-logs- group, without the API key header or the path (tracking tokens)', () => {
    const configs = ofType(apiResources, 'AWS::WAFv2::LoggingConfiguration');
    expect(configs).toHaveLength(1);
    const props = configs[0]![1].Properties;
    expect(props.ResourceArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(JSON.stringify(props.LogDestinationConfigs)).toContain(`:log-group:aws-waf-logs-${PREFIX}-api"`);
    expect(props.LoggingFilter).toEqual({ DefaultBehavior: 'DROP', Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }] });
    expect(props.RedactedFields).toEqual([{ SingleHeader: { Name: 'x-api-key' } }, { UriPath: {} }]);
    apiT.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: `aws-waf-logs-${PREFIX}-api`, RetentionInDays: 30 });
  });

  test('the stage throttles stay the overall ceiling behind it: each keyless route’s per-source limit is below its stage method throttle', () => {
    for (const l of [SOURCE_RATE_LIMITS.unsubscribe, SOURCE_RATE_LIMITS.oneClickUnsubscribe, SOURCE_RATE_LIMITS.openPixel, SOURCE_RATE_LIMITS.testEmails, SOURCE_RATE_LIMITS.oauthCallback, SOURCE_RATE_LIMITS.privacyRequests, SOURCE_RATE_LIMITS.privacyLinks]) {
      const routes = ROUTES.filter((r) => countsAgainst(l, r.method, r.path));
      expect(routes.length).toBeGreaterThan(0);
      for (const r of routes) expect([r.path, l.limit < (r.edgeThrottle ?? r.throttle!).perMinute]).toEqual([r.path, true]);
    }
    expect(SOURCE_RATE_LIMITS.apiKey.limit).toBeLessThan(STAGE_METHOD_CEILING.rateLimit * 60);
  });
});

describe('SES bounce and complaint events', () => {
  const setName = mailConfigurationSetName(PREFIX);
  const ruleId = () => stateful.getLogicalId(stateful.mailEvents.rule.node.defaultChild as CfnRule);
  const queueId = () => stateful.getLogicalId(stateful.queues['mail-events'].node.defaultChild as CfnQueue);

  test('a configuration set publishes bounces and complaints (nothing else) to the default event bus', () => {
    statefulT.hasResourceProperties('AWS::SES::ConfigurationSet', { Name: setName });
    const destinations = ofType(statefulResources, 'AWS::SES::ConfigurationSetEventDestination');
    expect(destinations).toHaveLength(1);
    const destination = destinations[0]![1].Properties;
    expect(destination.ConfigurationSetName).toEqual({ Ref: stateful.getLogicalId(stateful.mailEvents.configurationSet.node.defaultChild as CfnConfigurationSet) });
    expect(destination.EventDestination.Enabled).toBe(true);
    expect(destination.EventDestination.MatchingEventTypes.sort()).toEqual(['bounce', 'complaint', 'delivery']);
    expect(JSON.stringify(destination.EventDestination.EventBridgeDestination.EventBusArn)).toContain(':event-bus/default');
  });

  test('a rule takes that set’s SES bounce, complaint and delivery events to the mail-events queue as ses_event messages', () => {
    const rule = statefulResources[ruleId()]!.Properties;
    expect(rule.EventPattern).toEqual({
      source: ['aws.ses'],
      'detail-type': ['Email Bounced', 'Email Complaint Received', 'Email Delivered'],
      account: [{ Ref: 'AWS::AccountId' }],
      detail: { mail: { tags: { 'ses:configuration-set': [setName] } } },
    });
    expect(rule.Targets).toHaveLength(1);
    expect(rule.Targets[0].Arn).toEqual({ 'Fn::GetAtt': [queueId(), 'Arn'] });
    const { InputPathsMap, InputTemplate } = rule.Targets[0].InputTransformer;
    const placeholder = Object.keys(InputPathsMap).find((k) => InputPathsMap[k] === '$')!;
    // The whole event under `event`: the message the worker's schema (and the local dev route) expects.
    expect(JSON.parse(InputTemplate.replace(`<${placeholder}>`, '{"id":"e"}'))).toEqual({ kind: 'ses_event', event: { id: 'e' } });
  });

  test('only EventBridge, on behalf of that rule, may send to the queue', () => {
    const policies = ofType(statefulResources, 'AWS::SQS::QueuePolicy').filter(([, p]) => p.Properties.Queues.some((q: Json) => q.Ref === queueId()));
    expect(policies).toHaveLength(1);
    const allows = (policies[0]![1].Properties.PolicyDocument.Statement as Json[]).filter((st) => st.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]!.Principal).toEqual({ Service: 'events.amazonaws.com' });
    expect(asArray<string>(allows[0]!.Action)).toContain('sqs:SendMessage');
    expect(allows[0]!.Condition).toEqual({ ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId(), 'Arn'] } } });
  });

  test('the worker may only read and write the outreach table and delete a bounced enrollment\'s schedules: no queue send, no mail, no secrets', () => {
    const worker = api.workerFunctions['mail-events'];
    const actions = statementsOf(worker).flatMap((st) => asArray<string>(st.Action));
    expect(actions.filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('xray:') && !a.startsWith('sqs:')).sort()).toEqual([
      'iam:PassRole',
      'scheduler:CreateSchedule',
      'scheduler:DeleteSchedule',
      'scheduler:GetSchedule',
      'scheduler:UpdateSchedule',
    ]);
    expect(actions.filter((a) => a.startsWith('sqs:')).sort()).toEqual(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage']);
    const tableResources = JSON.stringify(statementsOf(worker).filter((st) => asArray<string>(st.Action).some((a) => a.startsWith('dynamodb:'))).map((st) => st.Resource));
    expect(tableResources).toMatch(/OutreachTable/);
    expect(tableResources).not.toMatch(/AccountsTable|JobsTable|DirectoryTable/);
  });

  test('SES sends name the configuration set, and the send grant covers it besides the identities', () => {
    const sending = api.workerFunctions.sending;
    const env = (resourcesOf(sending)[logicalId(sending)]!.Properties.Environment.Variables ?? {}) as Json;
    expect(env.SES_CONFIGURATION_SET).toBe(setName);
    const ses = statementsOf(sending).find((st) => asArray<string>(st.Action).includes('ses:SendEmail'))!;
    expect(JSON.stringify(ses.Resource)).toContain(`:configuration-set/${setName}"`);
  });

  test('the send grant is exactly SendEmail/SendRawEmail on each identity and on the one configuration set the sends name', () => {
    const ses = statementsOf(api.workerFunctions.sending).filter((st) => asArray<string>(st.Action).some((a) => a.startsWith('ses:')));
    expect(ses).toHaveLength(1);
    expect(asArray<string>(ses[0]!.Action).sort()).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
    const resources = asArray<Json>(ses[0]!.Resource).map((r) => JSON.stringify(r));
    expect(resources).toHaveLength(SES_IDENTITIES.length + 1);
    for (const identity of SES_IDENTITIES) expect(resources.filter((r) => r.includes(`:identity/${identity}"`))).toHaveLength(1);
    expect(resources.filter((r) => r.includes(`:configuration-set/${setName}"`))).toHaveLength(1);
    expect(resources.join()).not.toMatch(/\*/);
  });

  test('the console routes that set an smtp password and the sending worker that uses it may read the secret-box key', () => {
    for (const module of ['functions/console/create-sending-account.ts', 'functions/console/update-sending-account.ts']) {
      expect([module, ROUTES.find((r) => r.module === module)!.bindings.secrets]).toEqual([module, true]);
    }
    expect(QUEUE_LIST.find((q) => q.key === 'sending')!.worker.bindings.secrets).toBe(true);
  });
});

describe('data-side workers', () => {
  test('inbound mail: an SES receipt rule stores messages under inbound/, a worker is notified and reads only that prefix', () => {
    statefulT.hasResourceProperties('AWS::SES::ReceiptRule', {
      Rule: Match.objectLike({ Enabled: true, ScanEnabled: true, Actions: Match.arrayWith([Match.objectLike({ S3Action: Match.objectLike({ ObjectKeyPrefix: 'inbound/' }) })]) }),
    });
    statefulT.hasResourceProperties('AWS::Lambda::Function', { Description: 'Match and classify inbound mail stored by SES receiving', Runtime: 'nodejs22.x', Architectures: ['arm64'] });
    statefulT.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: Match.objectLike({ Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'ses.amazonaws.com' }, Action: 's3:PutObject' })]) }),
    });
  });

  test('directory import: an S3 upload under directory/ triggers the import function', () => {
    statefulT.hasResourceProperties('AWS::Lambda::Function', { Description: 'Plan a chunked, versioned import of an uploaded directory JSONL', Timeout: 300 });
    const notifications = Object.values(statefulResources).filter((r: any) => r.Type === 'Custom::S3BucketNotifications');
    const prefixes = JSON.stringify(notifications);
    expect(prefixes).toContain('directory/directory.jsonl');
    expect(prefixes).toContain('inbound/');
  });
});

describe('inbound mail metrics and their alarms', () => {
  const topicRef = { Ref: stateful.getLogicalId(stateful.alarmTopic.node.defaultChild as never) };
  const metricAlarms = () => ofType(statefulResources, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.Namespace === `people-outreach/${STAGE}`);

  test('one alarm per alarmed metric, on the stage namespace and the service dimension, summed, to the alarm topic; no data is no breach', () => {
    const byMetric = new Map(metricAlarms().map(([, a]) => [a.Properties.MetricName as string, a.Properties]));
    expect([...byMetric.keys()].sort()).toEqual(['inbound_failed', 'mailbox_polls_failed', 'messages_unprocessable']);
    for (const def of MAIL_ALARMS) expect(METRIC_NAMES).toContain(def.metric);
    const shape = (name: string) => {
      const a = byMetric.get(name)!;
      return [a.Period, a.EvaluationPeriods, a.DatapointsToAlarm, a.Threshold];
    };
    // mailbox_polls_failed: failures in each of three 5-minute periods running (a mailbox failing for 10-15 minutes, not
    // one retried poll); messages_unprocessable: any in an hour; inbound_failed: any in 5 minutes, like a function error.
    expect(shape('mailbox_polls_failed')).toEqual([300, 3, 3, 1]);
    expect(shape('messages_unprocessable')).toEqual([3600, 1, 1, 1]);
    expect(shape('inbound_failed')).toEqual([300, 1, 1, 1]);
    for (const a of byMetric.values()) {
      expect(a).toMatchObject({
        Statistic: 'Sum',
        Dimensions: [{ Name: 'service', Value: 'people-outreach' }],
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [topicRef],
      });
      expect(a.AlarmDescription).toMatch(new RegExp(`^${PREFIX}: `));
    }
  });

  test('the functions that count them publish to the same namespace and service, and the inbound-mail function has its own error alarm', () => {
    const inbound = stateful.inboundMail.fn;
    for (const fn of [inbound, api.mailboxPoll.pollFunction, api.workerFunctions['mail-events'], api.housekeeping.deadLetterFunction]) {
      const env: Json = resourcesOf(fn)[logicalId(fn)]!.Properties.Environment.Variables;
      expect([env.POWERTOOLS_METRICS_NAMESPACE, env.POWERTOOLS_SERVICE_NAME]).toEqual([`people-outreach/${STAGE}`, 'people-outreach']);
    }
    const errors = ofType(statefulResources, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.MetricName === 'Errors' && a.Properties.Dimensions?.[0]?.Value?.Ref === logicalId(inbound));
    expect(errors.map(([, a]) => [a.Properties.Namespace, a.Properties.Threshold, a.Properties.AlarmActions])).toEqual([['AWS/Lambda', 1, [topicRef]]]);
  });

  test('EMF is a log line: no function may call CloudWatch (no cloudwatch:PutMetricData), the log writes of its basic role suffice', () => {
    const actions = [...allApiResources().map(([, r]) => r), ...Object.values(statefulResources)]
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((p) => (p.Properties.PolicyDocument.Statement as Json[]).flatMap((st) => asArray<string>(st.Action)));
    expect(actions.length).toBeGreaterThan(ROUTES.length);
    expect(actions.filter((a) => a.startsWith('cloudwatch:'))).toEqual([]);
  });
});

describe('operations (issue 44): the stage dashboard, and the alarms that matter, each to the alarm topic', () => {
  const statefulTopic = { Ref: stateful.getLogicalId(stateful.alarmTopic.node.defaultChild as never) };
  /** The alarm topic as the API stack names it: the stateful stack's export. */
  const apiTopic = (actions: unknown) => expect(JSON.stringify(actions)).toMatch(/^\[\{"Fn::ImportValue":"people-outreach-test-stateful:ExportsOutputRefAlarmTopic[0-9A-F]{8}[0-9A-F]{8}"\}\]$/);
  const alarmsOf = (resources: Record<string, Json>) => ofType(resources, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties as Json);

  test('one dashboard per stage, named for it, with the sections operators read: traffic, errors and latency per API; queues; jobs; outreach; credits', () => {
    const dashboards = ofType(apiResources, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    expect(ofType(statefulResources, 'AWS::CloudWatch::Dashboard')).toHaveLength(0);
    const props = dashboards[0]![1].Properties;
    expect(props.DashboardName).toBe(dashboardName(PREFIX));
    expect(dashboardName(PREFIX)).toBe('people-outreach-test-operations');
    // The body is a join of text and tokens (the region): the tokens become a placeholder, the rest is the JSON.
    const parts = props.DashboardBody['Fn::Join'][1] as unknown[];
    const body = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'REGION')).join('')) as { widgets: { type: string; width: number; properties: Json }[] };
    const graphs = body.widgets.filter((w) => w.type === 'metric');
    const byTitle = new Map(graphs.map((w) => [w.properties.title as string, w.properties]));
    const titles = Object.values(DASHBOARD_TITLES).flat();
    expect(graphs.map((w) => w.properties.title)).toEqual(titles);
    // Every row fills the dashboard's 24 columns.
    for (const row of Object.values(DASHBOARD_TITLES)) expect(row.reduce((n, t) => n + graphs.find((w) => w.properties.title === t)!.width, 0)).toBe(24);
    const metricsOf = (title: string) => (byTitle.get(title)!.metrics as unknown[][]).map((m) => m.filter((x) => typeof x === 'string').join(' '));
    // Per API (by its name): requests, 4xx, 5xx; latency percentiles.
    for (const [i, apiName] of [`${PREFIX}-api`, `${PREFIX}-app-api`].entries()) {
      expect(metricsOf(DASHBOARD_TITLES.apis[2 * i]!)).toEqual([`AWS/ApiGateway Count ApiName ${apiName}`, `AWS/ApiGateway 4XXError ApiName ${apiName}`, `AWS/ApiGateway 5XXError ApiName ${apiName}`]);
      expect(metricsOf(DASHBOARD_TITLES.apis[2 * i + 1]!).every((m) => m.startsWith('AWS/ApiGateway ') && m.endsWith(`ApiName ${apiName}`))).toBe(true);
    }
    // Every queue's depth and oldest message, every DLQ, by the queue's name.
    expect(metricsOf(DASHBOARD_TITLES.queues[0])).toEqual(QUEUE_LIST.map((q) => `AWS/SQS ApproximateNumberOfMessagesVisible QueueName ${queueName(PREFIX, q.key)}`));
    expect(metricsOf(DASHBOARD_TITLES.queues[1])).toEqual(QUEUE_LIST.map((q) => `AWS/SQS ApproximateAgeOfOldestMessage QueueName ${queueName(PREFIX, q.key)}`));
    expect(metricsOf(DASHBOARD_TITLES.queues[2])).toEqual(QUEUE_LIST.map((q) => `AWS/SQS ApproximateNumberOfMessagesVisible QueueName ${queueName(PREFIX, q.key, true)}`));
    // The service's own metrics, in the stage's namespace with the service dimension.
    const own = (title: string) => metricsOf(title).filter((m) => m.startsWith(`people-outreach/${STAGE} `));
    expect(own(DASHBOARD_TITLES.jobs[0])).toEqual(['completed', 'failed', 'cancelled'].map((o) => `people-outreach/${STAGE} jobs_ended outcome ${o} service people-outreach`));
    expect(own(DASHBOARD_TITLES.jobs[1])).toHaveLength(5);
    expect(own(DASHBOARD_TITLES.outreach[0])).toEqual(['sends', 'bounces_hard', 'bounces_soft', 'complaints', 'replies', 'unsubscribes'].map((n) => `people-outreach/${STAGE} ${n} service people-outreach`));
    expect(own(DASHBOARD_TITLES.credits[0])).toEqual(['credits_charged', 'credits_released'].map((n) => `people-outreach/${STAGE} ${n} service people-outreach`));
    expect(own(DASHBOARD_TITLES.credits[1])).toHaveLength(15);
    // The rates are metric math on the day's sends, with the alarms' thresholds drawn on.
    const rates = byTitle.get(DASHBOARD_TITLES.outreach[1])!;
    for (const counted of ['bounces_hard', 'complaints']) expect(JSON.stringify(rates.metrics)).toContain(`IF(FILL(sends, 0) > 0, 100 * FILL(${counted}, 0) / FILL(sends, 0), 0)`);
    expect(rates.annotations.horizontal.map((a: Json) => a.value)).toEqual([2, 0.1]);
    // Every metric the dashboard names from the service is in the catalogue.
    const named = graphs.flatMap((w) => (w.properties.metrics as unknown[][]).filter((m) => m[0] === `people-outreach/${STAGE}`).map((m) => m[1] as string));
    expect(named.filter((n) => !METRIC_NAMES.includes(n as never))).toEqual([]);
  });

  test('5xx on both APIs: 5 or more in 5 minutes', () => {
    const fiveXx = alarmsOf(apiResources).filter((a) => a.MetricName === '5XXError');
    expect(fiveXx.map((a) => a.Dimensions)).toEqual([[{ Name: 'ApiName', Value: `${PREFIX}-api` }], [{ Name: 'ApiName', Value: `${PREFIX}-app-api` }]]);
    for (const a of fiveXx) {
      expect(a).toMatchObject({ Namespace: 'AWS/ApiGateway', Statistic: 'Sum', Period: 300, EvaluationPeriods: 1, Threshold: 5, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
      apiTopic(a.AlarmActions);
    }
  });

  test('each queue’s oldest message past its deadline (visibility timeout × receives), and a message in any dead-letter queue', () => {
    const age = alarmsOf(statefulResources).filter((a) => a.MetricName === 'ApproximateAgeOfOldestMessage');
    expect(age).toHaveLength(QUEUE_LIST.length);
    const expected: Record<string, number> = { search: 3600, drafting: 1800, sending: 900, webhooks: 600, timers: 600, 'mail-events': 600, 'directory-import': 9000, 'directory-finalize': 16200 };
    for (const q of QUEUE_LIST) {
      expect(queueAgeDeadlineSeconds(q.key)).toBe(expected[q.key]);
      const queueId = stateful.getLogicalId(stateful.queues[q.key].node.defaultChild as never);
      const a = age.find((x) => x.Dimensions[0].Value['Fn::GetAtt'][0] === queueId)!;
      expect([q.key, a]).toEqual([q.key, expect.objectContaining({ Namespace: 'AWS/SQS', Statistic: 'Maximum', Period: 300, EvaluationPeriods: 1, Threshold: expected[q.key], ComparisonOperator: 'GreaterThanThreshold', AlarmActions: [statefulTopic] })]);
    }
    // The search and drafting deadlines come before the sweeper ends their work as failed.
    expect(queueAgeDeadlineSeconds('search') * 1000).toBeLessThan(DEADLINES.JOB_MS);
    expect(queueAgeDeadlineSeconds('drafting') * 1000).toBeLessThan(DEADLINES.DRAFT_MS);
    const dlq = alarmsOf(statefulResources).filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(dlq).toHaveLength(QUEUE_LIST.length + 1);
    for (const a of dlq) expect(a).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', AlarmActions: [statefulTopic] });
  });

  test('bounce rate over 2% and complaint rate over 0.1% of a day’s sends, by metric math on the service’s counts', () => {
    const math = alarmsOf(statefulResources).filter((a) => Array.isArray(a.Metrics));
    expect(math.map((a) => a.Threshold)).toEqual([2, 0.1]);
    for (const [i, counted] of ['bounces_hard', 'complaints'].entries()) {
      const a = math[i]!;
      expect(a).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1, TreatMissingData: 'notBreaching', AlarmActions: [statefulTopic] });
      const expression = a.Metrics.find((m: Json) => m.Expression);
      expect(expression).toMatchObject({ Expression: `IF(FILL(sends, 0) > 0, 100 * FILL(${counted}, 0) / FILL(sends, 0), 0)`, ReturnData: true });
      const inputs = Object.fromEntries(a.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => [m.Id, m.MetricStat]));
      expect(inputs).toEqual({
        sends: { Metric: { Namespace: `people-outreach/${STAGE}`, MetricName: 'sends', Dimensions: [{ Name: 'service', Value: 'people-outreach' }] }, Period: 86400, Stat: 'Sum' },
        [counted]: { Metric: { Namespace: `people-outreach/${STAGE}`, MetricName: counted, Dimensions: [{ Name: 'service', Value: 'people-outreach' }] }, Period: 86400, Stat: 'Sum' },
      });
    }
    expect(RATE_ALARMS.map((r) => [r.metric, r.thresholdPercent])).toEqual([['bounces_hard', 2], ['complaints', 0.1]]);
  });

  test('mailbox polls failing and unprocessable messages (the inbound-mail alarms), and jobs the sweeper ended as lost', () => {
    const mail = alarmsOf(statefulResources).filter((a) => a.Namespace === `people-outreach/${STAGE}`);
    expect(mail.map((a) => [a.MetricName, a.Threshold, a.Period])).toEqual([['mailbox_polls_failed', 1, 300], ['messages_unprocessable', 1, 3600], ['inbound_failed', 1, 300]]);
    const lost = alarmsOf(apiResources).filter((a) => a.Namespace === `people-outreach/${STAGE}`);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({
      MetricName: 'lost_work_ended',
      Dimensions: [{ Name: 'service', Value: 'people-outreach' }, { Name: 'table', Value: 'jobs' }],
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    apiTopic(lost[0]!.AlarmActions);
  });

  test('every alarm of every stack notifies the alarm topic, and nothing else', () => {
    const everywhere = [...alarmsOf(statefulResources), ...allApiResources().filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties as Json)];
    expect(everywhere.length).toBeGreaterThan(ROUTES.length + QUEUE_LIST.length * 2);
    for (const a of everywhere) {
      expect(a.AlarmActions).toHaveLength(1);
      expect(JSON.stringify(a.AlarmActions)).toMatch(/AlarmTopic/);
    }
  });
});

describe('the customer web app: user pool, app client, Cognito authorizer', () => {
  const poolId = () => stateful.getLogicalId(stateful.userPool.node.defaultChild as never);
  const userRoutes = ROUTES.filter((r) => r.auth === 'user');

  test('operators add users (no self sign-up), with a strong password policy and an immutable account attribute', () => {
    statefulT.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true }) },
      Schema: Match.arrayWith([Match.objectLike({ Name: 'account_id', AttributeDataType: 'String', Mutable: false })]),
      UsernameAttributes: ['email'],
      DeletionProtection: 'ACTIVE',
    });
  });

  test('the app client signs in with USER_PASSWORD_AUTH or SRP and has no secret', () => {
    statefulT.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      UserPoolId: { Ref: poolId() },
      ExplicitAuthFlows: Match.arrayEquals(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']),
      GenerateSecret: false,
      PreventUserExistenceErrors: 'ENABLED',
    });
  });

  test('user routes live on their own REST API, behind a Cognito authorizer of that pool, and a refused token is 401 {"message":"Unauthorized"}', () => {
    expect(userRoutes.length).toBeGreaterThanOrEqual(11);
    for (const r of userRoutes) expect(r.path.startsWith('/api/app/v1/')).toBe(true);
    const appApiId = api.getLogicalId(api.appApi.node.defaultChild as never);
    const authorizer = apiResources[api.getLogicalId(api.userAuthorizer.node.defaultChild as never)]!.Properties;
    expect(authorizer).toMatchObject({ Type: 'COGNITO_USER_POOLS', RestApiId: { Ref: appApiId }, IdentitySource: 'method.request.header.Authorization' });
    expect(JSON.stringify(authorizer.ProviderARNs)).toMatch(/ExportsOutputFnGetAttUsers[0-9A-F]{8}Arn/);
    const responses = ofType(apiResources, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    expect(responses.find((r) => r.RestApiId.Ref === appApiId && r.ResponseType === 'UNAUTHORIZED')).toMatchObject({ StatusCode: '401', ResponseTemplates: { 'application/json': '{"message":"Unauthorized"}' } });
    expect(responses.find((r) => r.RestApiId.Ref !== appApiId && r.ResponseType === 'UNAUTHORIZED')).toMatchObject({ StatusCode: '403' });
  });

  test('only the console route that adds users may touch the pool: AdminCreateUser and AdminSetUserPassword on that pool', () => {
    for (const { name, fn, bindings } of allFunctions) {
      const cognito = statementsOf(fn).filter((st) => asArray<string>(st.Action).some((a) => a.startsWith('cognito-idp:')));
      expect([name, cognito.length]).toEqual([name, bindings.userPool ? 1 : 0]);
      if (!bindings.userPool) continue;
      expect(asArray<string>(cognito[0]!.Action).sort()).toEqual(['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword']);
      expect(JSON.stringify(cognito[0]!.Resource)).toMatch(/ExportsOutputFnGetAttUsers[0-9A-F]{8}Arn/);
    }
    expect(allFunctions.filter((f) => f.bindings.userPool).map((f) => f.name)).toEqual(['POST /api/console/v1/accounts/{id}/users/']);
  });

  test('the sequences and jobs pages: reads only read their table; the redeliver writes jobs and sends only to the webhooks queue', () => {
    const pageRoutes = userRoutes.filter((r) => /^\/api\/app\/v1\/(sequences|jobs)\//.test(r.path) && (r.method === 'GET' || r.path.endsWith('/redeliver/')));
    expect(pageRoutes).toHaveLength(7);
    for (const route of pageRoutes) {
      const fn = api.routeFunctions.get(route)!;
      const table: TableKey = route.path.includes('/jobs/') ? 'jobs' : 'outreach';
      const redeliver = route.method === 'POST';
      const tableActions = [...new Set(statementsOf(fn).filter((s) => asArray(s.Resource).some((r) => refersToTable(r, table))).flatMap((s) => asArray<string>(s.Action)))].sort();
      expect([route.path, tableActions]).toEqual([route.path, (redeliver ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : [...TABLE_READ_ACTIONS]).sort()]);
      const sqs = statementsOf(fn).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('sqs:'))).map((s) => JSON.stringify(s.Resource));
      expect([route.path, sqs]).toEqual([route.path, redeliver ? [expect.stringMatching(/WebhooksQueue/)] : []]);
      const others = statementsOf(fn).flatMap((s) => asArray<string>(s.Action)).filter((a) => /^(scheduler|ses|s3|cognito-idp):/.test(a));
      expect([route.path, others]).toEqual([route.path, []]);
    }
    expect(pageRoutes.find((r) => r.method === 'POST')!.throttle).toEqual(APP_LIMITS.redeliver.stage);
  });
});

test('the app routes that start work are granted exactly what their public twins are', () => {
  const twins: [string, string][] = [
    ['POST /api/app/v1/search/', 'POST /api/public/v1/search/'],
    ['POST /api/app/v1/deep-search/', 'POST /api/public/v1/deep-search/'],
    ['POST /api/app/v1/agentic-search/', 'POST /api/public/v1/agentic-search/'],
    ['POST /api/app/v1/sequences/', 'POST /api/public/v1/sequences/'],
    ['POST /api/app/v1/sequences/{sequence_id}/contacts/', 'POST /api/public/v1/sequences/{id}/contacts/'],
    ['POST /api/app/v1/sequences/{sequence_id}/approve/', 'POST /api/public/v1/sequences/{id}/approve/'],
    ['POST /api/app/v1/sequences/{sequence_id}/cancel/', 'POST /api/public/v1/sequences/{id}/cancel/'],
  ];
  const route = (key: string) => ROUTES.find((r) => `${r.method} ${r.path}` === key)!;
  for (const [app, pub] of twins) expect([app, route(app).auth, route(app).bindings]).toEqual([app, 'user', route(pub).bindings]);
});

describe('room to grow (CloudFormation: 500 resources per stack, nested stacks included)', () => {
  const LIMIT = 500;
  const HEADROOM = 0.6;

  test(`with every docs/decisions.md route built and one error alarm per function, each stack stays under ${HEADROOM * 100}% of ${LIMIT} resources`, () => {
    const projected = buildApp(ROUTES);
    const count = (st: Stack) => Object.keys(Template.fromStack(st).toJSON().Resources).length;
    const counts = Object.fromEntries([projected.stateful, projected.api, ...projected.api.contextStacks.values()].map((st) => [st.node.path, count(st)]));
    const today = Object.fromEntries([stateful, api, ...nestedStacks].map((st) => [st.node.path, count(st)]));
    const over = Object.entries(counts).filter(([, n]) => n >= LIMIT * HEADROOM);
    expect({ over, counts, today }).toEqual({ over: [], counts: expect.any(Object), today: expect.any(Object) });
    // The structure the projection relies on: functions out of the API stack, methods in it; the authorizer's
    // function and its alarm are counted in its context.
    const projectedFunctions = [...projected.api.contextStacks.values()].flatMap((st) => ofType(Template.fromStack(st).toJSON().Resources, 'AWS::Lambda::Function'));
    expect(projectedFunctions).toHaveLength(ROUTES.length + QUEUE_LIST.length + 4); // + authorizer, dead-letter consumer, sweeper, mailbox poller
    expect(Stack.of(projected.api.apiKeyAuthorizer.fn)).toBe(projected.api.contextStacks.get('Console'));
    expect(counts[projected.api.node.path]).toBeGreaterThan(ROUTES.length);
    expect(ofType(Template.fromStack(projected.api).toJSON().Resources, 'AWS::Lambda::Function')).toEqual([]);
  });
});

describe('search engines', () => {
  const searchWorker = () => api.workerFunctions.search;
  const allTemplates = (stacks: Stack[]) => stacks.flatMap((st) => Object.values(Template.fromStack(st).toJSON().Resources as Record<string, Json>));

  test('the search worker runs at most 10 containers at once (each holds the whole in-memory index)', () => {
    const mappings = ofType(resourcesOf(searchWorker()), 'AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m.Properties.FunctionName).includes(logicalId(searchWorker())));
    expect(mappings.map(([, m]) => m.Properties.ScalingConfig)).toEqual([{ MaximumConcurrency: 10 }]);
  });

  test('the search worker reads the directory object and the index artifacts, and lists only under the index prefix', () => {
    const s3 = statementsOf(searchWorker()).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('s3:')));
    const get = s3.find((s) => asArray<string>(s.Action).includes('s3:GetObject'))!;
    expect(JSON.stringify(get.Resource)).toContain('/directory/directory.jsonl"');
    expect(JSON.stringify(get.Resource)).toContain('/index/*');
    const list = s3.find((s) => asArray<string>(s.Action).includes('s3:ListBucket'))!;
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': 'index/*' } });
    expect(s3.flatMap((s) => asArray<string>(s.Action)).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
  });

  test('the default synth has no OpenSearch resource and no function selects it', () => {
    expect(allTemplates([stateful, api, ...nestedStacks]).filter((r) => r.Type.startsWith('AWS::OpenSearchServerless::'))).toEqual([]);
    expect(resourcesOf(searchWorker())[logicalId(searchWorker())]!.Properties.Environment.Variables.SEARCH_ENGINE).toBeUndefined();
  });

  describe('with -c searchEngine=opensearch', () => {
    const osApp = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const os = createServiceStacks(osApp, { stage: STAGE, sesIdentities: SES_IDENTITIES, searchEngine: 'opensearch' });
    const osStateful: Record<string, Json> = Template.fromStack(os.stateful).toJSON().Resources;
    const osApi: Record<string, Json> = Template.fromStack(os.api).toJSON().Resources;
    const worker = os.api.workerFunctions.search;
    const workerResources: Record<string, Json> = Template.fromStack(Stack.of(worker)).toJSON().Resources;
    const workerId = Stack.of(worker).getLogicalId(worker.node.defaultChild as CfnFunction);

    test('a SEARCH collection, encrypted, behind its network policy', () => {
      const [[collectionId, collection]] = ofType(osStateful, 'AWS::OpenSearchServerless::Collection') as [[string, Json]];
      expect(collection.Properties).toMatchObject({ Name: `people-${STAGE}`, Type: 'SEARCH', StandbyReplicas: 'ENABLED' });
      const policies = ofType(osStateful, 'AWS::OpenSearchServerless::SecurityPolicy');
      const byType = Object.fromEntries(policies.map(([id, p]) => [p.Properties.Type, { id, policy: JSON.parse(p.Properties.Policy) }]));
      expect(byType.encryption.policy).toEqual({ Rules: [{ ResourceType: 'collection', Resource: [`collection/people-${STAGE}`] }], AWSOwnedKey: true });
      expect(byType.network.policy).toEqual([{ Rules: [{ ResourceType: 'collection', Resource: [`collection/people-${STAGE}`] }], AllowFromPublic: true }]);
      // A collection can be created only once its encryption and network policies exist.
      expect(collection.DependsOn).toEqual(expect.arrayContaining([byType.encryption.id, byType.network.id]));
      expect(collectionId).toBeTruthy();
    });

    test('the search worker selects OpenSearch, signs for aoss, and may call only this collection', () => {
      const env: Json = workerResources[workerId]!.Properties.Environment.Variables;
      expect(env).toMatchObject({ SEARCH_ENGINE: 'opensearch', OPENSEARCH_SIGV4_SERVICE: 'aoss' });
      expect(JSON.stringify(env.OPENSEARCH_URL)).toContain('CollectionEndpoint');
      const roleId = workerResources[workerId]!.Properties.Role['Fn::GetAtt'][0];
      const aoss = ofType(workerResources, 'AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[])
        .filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('aoss:')));
      expect(aoss.map((s) => [s.Action, JSON.stringify(s.Resource)])).toEqual([['aoss:APIAccessAll', expect.stringMatching(/Collection.*Arn/)]]);
    });

    test('the data-access policy: the search worker reads, the chunk worker creates and loads, the finalize worker aliases and deletes; the planner has no access', () => {
      const [[, access]] = ofType(osApi, 'AWS::OpenSearchServerless::AccessPolicy') as [[string, Json]];
      expect(access.Properties).toMatchObject({ Name: `people-${STAGE}-access`, Type: 'data' });
      const text = JSON.stringify(access.Properties.Policy);
      expect(text).toContain(`index/people-${STAGE}/people*`);
      const ruleOf = (principal: RegExp) => {
        const at = text.search(principal);
        expect(at).toBeGreaterThan(-1);
        return text.slice(text.lastIndexOf('Rules', at), at);
      };
      const chunk = ruleOf(/DirectoryImportWorkerFn/);
      expect(chunk).toMatch(/aoss:CreateIndex/);
      expect(chunk).toMatch(/aoss:WriteDocument/);
      expect(chunk).not.toMatch(/aoss:DeleteIndex|aoss:UpdateIndex|aoss:(Create|Update|Delete)CollectionItems/);
      const finalize = ruleOf(/DirectoryFinalizeWorkerFn/);
      // The alias swap (POST _aliases) is a collection item in OpenSearch Serverless's permission table.
      for (const p of ['CreateCollectionItems', 'UpdateCollectionItems', 'DeleteCollectionItems', 'DeleteIndex', 'ReadDocument']) expect(finalize).toMatch(`aoss:${p}`);
      expect(finalize).not.toMatch(/aoss:WriteDocument|aoss:CreateIndex|aoss:UpdateIndex/);
      expect(ruleOf(/SearchWorkerFn/)).not.toMatch(/aoss:WriteDocument|aoss:UpdateIndex|aoss:DeleteIndex|aoss:(Create|Update|Delete)CollectionItems/);
      const importFn = ofType(osStateful, 'AWS::Lambda::Function').find(([id]) => id.startsWith('DirectoryImport'))!;
      expect(importFn[1].Properties.Environment.Variables.SEARCH_ENGINE).toBeUndefined();
      expect(JSON.stringify(osStateful)).not.toMatch(/aoss:APIAccessAll/);
      for (const key of ['directory-import', 'directory-finalize'] as const) {
        const fn = os.api.workerFunctions[key];
        expect(templateOf(fn).toJSON().Resources[logicalId(fn)].Properties.Environment.Variables).toMatchObject({ SEARCH_ENGINE: 'opensearch', OPENSEARCH_SIGV4_SERVICE: 'aoss' });
      }
      // A privacy request's confirm deletes an erased person's documents (shared/privacy/directory-erasure.ts): it
      // writes documents and reads the alias, and may neither create, drop nor alias an index.
      const confirm = [...os.api.routeFunctions].find(([r]) => r.module === 'functions/privacy/confirm.ts')![1];
      expect(templateOf(confirm).toJSON().Resources[logicalId(confirm)].Properties.Environment.Variables).toMatchObject({ SEARCH_ENGINE: 'opensearch', OPENSEARCH_SIGV4_SERVICE: 'aoss' });
      const eraser = ruleOf(/PrivacyRequestsByTokenConfirmFn/);
      expect(eraser).toMatch(/aoss:WriteDocument/);
      expect(eraser).not.toMatch(/aoss:CreateIndex|aoss:DeleteIndex|aoss:UpdateIndex|aoss:(Create|Update|Delete)CollectionItems/);
    });

    test('cdk-nag reports no unacknowledged finding', () => {
      expect(nagFindings(osApp)).toEqual([]);
    });
  });
});

describe('directory import', () => {
  const s3Statements = (fn: ServiceFunction) =>
    statementsOf(fn)
      .filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('s3:')))
      .map((s) => ({ actions: asArray<string>(s.Action).sort(), resource: JSON.stringify(s.Resource) }));
  const tablesTouched = (fn: ServiceFunction) => TABLE_LIST.map((t) => t.key).filter((key) => statementsOf(fn).some((s) => asArray(s.Resource).some((r) => refersToTable(r, key))));
  const queuesSentTo = (fn: ServiceFunction) =>
    statementsOf(fn)
      .filter((s) => asArray<string>(s.Action).includes('sqs:SendMessage'))
      .flatMap((s) => [...JSON.stringify(s.Resource).matchAll(/(Search|Webhooks|Sending|Drafting|Timers|MailEvents|DirectoryImport|DirectoryFinalize)Queue/g)].map((m) => m[1]))
      .sort();
  const planner = stateful.node.findChild('DirectoryImport').node.findChild('Fn') as ServiceFunction;

  test('the chunk worker writes only the directory table, reads only the directory object (any version), and queues only its own messages and the finalize step', () => {
    const fn = api.workerFunctions['directory-import'];
    // privacy: the erasure list every import applies (docs/privacy.md).
    expect(tablesTouched(fn)).toEqual(['directory', 'privacy']);
    expect(s3Statements(fn)).toEqual([{ actions: ['s3:GetObject', 's3:GetObjectVersion'], resource: expect.stringMatching(/\/directory\/directory\.jsonl"/) }]);
    expect(queuesSentTo(fn)).toEqual(['DirectoryFinalize', 'DirectoryImport']);
  });

  test('the finalize worker (10 GB with -c maxLambdaMemoryMb=10240) also puts search index artifacts, under index/ only', () => {
    const fn = api.workerFunctions['directory-finalize'];
    expect(tablesTouched(fn)).toEqual(['directory', 'privacy']);
    expect(s3Statements(fn)).toEqual([
      { actions: ['s3:GetObject', 's3:GetObjectVersion'], resource: expect.stringMatching(/\/directory\/directory\.jsonl"/) },
      { actions: ['s3:DeleteObject', 's3:PutObject'], resource: expect.stringMatching(/directory-bucket-arn.*\/index\/\*"/) },
    ]);
    // Capped by default (new accounts' quota); the whole 10 GB when the context raises the cap.
    expect(templateOf(fn).toJSON().Resources[logicalId(fn)].Properties.MemorySize).toBe(DEFAULT_MAX_LAMBDA_MEMORY_MB);
    const raised = buildVariant({}, { maxLambdaMemoryMb: '10240' }).api.workerFunctions['directory-finalize'];
    Template.fromStack(Stack.of(raised)).hasResourceProperties('AWS::Lambda::Function', Match.objectLike({ Description: 'Worker of the directory-finalize queue', MemorySize: 10240 }));
  });

  test('the chunk worker runs at most 8 at once (the table write units), the finalize worker at most 2', () => {
    const mappings = (fn: ServiceFunction) => ofType(templateOf(fn).toJSON().Resources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m.Properties.FunctionName).includes(logicalId(fn)));
    expect(mappings(api.workerFunctions['directory-import']).map(([, m]) => m.Properties.ScalingConfig)).toEqual([{ MaximumConcurrency: 8 }]);
    expect(mappings(api.workerFunctions['directory-finalize']).map(([, m]) => m.Properties.ScalingConfig)).toEqual([{ MaximumConcurrency: 2 }]);
  });

  test('the import bucket expires replaced uploads after 30 days and deleted artifacts after 7, never a current object', () => {
    const bucket = ofType(statefulResources, 'AWS::S3::Bucket').find(([id]) => id.startsWith('DirectoryImportBucket'))!;
    expect(bucket[1].Properties.LifecycleConfiguration.Rules).toEqual([
      { Id: 'replaced-uploads', Prefix: 'directory/directory.jsonl', NoncurrentVersionExpiration: { NoncurrentDays: 30 }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 }, Status: 'Enabled' },
      { Id: 'deleted-artifacts', Prefix: 'index/', NoncurrentVersionExpiration: { NoncurrentDays: 7 }, ExpiredObjectDeleteMarker: true, Status: 'Enabled' },
    ]);
  });

  test('the S3-triggered planner reads the directory object, writes the status item and queues chunks', () => {
    const tablesInStack = TABLE_LIST.map((t) => t.key).filter((key) => new RegExp(`"${pascal(key)}Table[0-9A-F]{8}"`).test(JSON.stringify(statementsOf(planner))));
    expect(tablesInStack).toEqual(['directory']);
    expect(s3Statements(planner)).toEqual([{ actions: ['s3:GetObject', 's3:GetObjectVersion'], resource: expect.stringMatching(/\/directory\/directory\.jsonl"/) }]);
    expect(queuesSentTo(planner)).toEqual(['DirectoryFinalize', 'DirectoryImport']);
  });
});

describe('the customer web app on S3 and CloudFront', () => {
  const hosting = api.webHosting;
  const REGION = 'eu-west-1';
  const webResources = () => resourcesOf(hosting);
  const one = (type: string): Json => {
    const found = ofType(webResources(), type);
    expect(found).toHaveLength(1);
    return found[0]![1].Properties;
  };
  /** A CloudFormation string with its `AWS::Region` references resolved to `REGION`. */
  const withRegion = (value: unknown): string =>
    typeof value === 'string' ? value : (value as Json)['Fn::Join'][1].map((part: unknown) => (typeof part === 'string' ? part : JSON.stringify(part) === '{"Ref":"AWS::Region"}' ? REGION : JSON.stringify(part))).join('');

  test('the bucket is private, encrypted with S3-managed keys, TLS-only, without website hosting', () => {
    const bucket = one('AWS::S3::Bucket');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }]);
    expect(bucket.WebsiteConfiguration).toBeUndefined();
    const statements: Json[] = one('AWS::S3::BucketPolicy').PolicyDocument.Statement;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    // Read only by this distribution, through origin access control.
    const reads = statements.filter((s) => s.Effect === 'Allow');
    expect(reads).toEqual([
      expect.objectContaining({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' }, Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } } }),
    ]);
  });

  test('CloudFront reads the bucket through origin access control, serves /app/ over HTTPS and sends /api/app/* to the AppApi stage uncached', () => {
    expect(one('AWS::CloudFront::OriginAccessControl').OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' });
    const config = one('AWS::CloudFront::Distribution').DistributionConfig;
    const s3Origin = config.Origins.find((o: Json) => o.S3OriginConfig);
    expect(s3Origin.OriginAccessControlId).toBeDefined();
    expect(s3Origin.S3OriginConfig.OriginAccessIdentity).toBe('');
    expect(config.DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https', TargetOriginId: s3Origin.Id });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    const apiBehaviour = config.CacheBehaviors.find((b: Json) => b.PathPattern === '/api/app/*');
    const apiOrigin = config.Origins.find((o: Json) => o.Id === apiBehaviour.TargetOriginId);
    expect(apiOrigin).toMatchObject({ OriginPath: `/${STAGE}`, CustomOriginConfig: { OriginProtocolPolicy: 'https-only' } });
    expect(JSON.stringify(apiOrigin.DomainName)).toContain('.execute-api.');
    expect(apiBehaviour).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // AllViewerExceptHostHeader
    });
    // The OAuth callback: on the app's own domain, to the public API's stage, uncached, the cookie and query forwarded.
    const oauthBehaviour = config.CacheBehaviors.find((b: Json) => b.PathPattern === '/oauth/callback/*');
    const publicOrigin = config.Origins.find((o: Json) => o.Id === oauthBehaviour.TargetOriginId);
    expect(publicOrigin).toMatchObject({ OriginPath: `/${STAGE}`, CustomOriginConfig: { OriginProtocolPolicy: 'https-only' } });
    expect(JSON.stringify(publicOrigin.DomainName)).toContain('.execute-api.');
    expect(publicOrigin.Id).not.toBe(apiOrigin.Id);
    expect(oauthBehaviour).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // AllViewerExceptHostHeader: cookies and query strings
    });
    expect(oauthBehaviour.FunctionAssociations).toBeUndefined();
    // The privacy page's calls: on the app's own domain, to the public API's stage, uncached, every method.
    const privacyBehaviour = config.CacheBehaviors.find((b: Json) => b.PathPattern === '/api/public/v1/privacy-requests/*');
    expect(privacyBehaviour).toMatchObject({
      TargetOriginId: publicOrigin.Id,
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // AllViewerExceptHostHeader
      ResponseHeadersPolicyId: apiBehaviour.ResponseHeadersPolicyId,
    });
    const paths = one('AWS::CloudFront::Function').FunctionCode as string;
    expect(paths).toContain("uri + 'index.html'");
    expect(paths).toContain("location: { value: '/app/' }");
    // The privacy page is served at /privacy/ from the app's files (app/privacy/index.html).
    expect(paths).toContain("location: { value: '/privacy/' }");
    expect(paths).toContain("if (uri.startsWith('/privacy/')) uri = '/app/privacy/' + uri.slice(9);");
  });

  test('every outreach email\'s footer names the privacy page on the distribution\'s domain (the sending worker\'s PRIVACY_PAGE_URL)', () => {
    const sending = api.workerFunctions.sending!;
    const value = JSON.stringify(resourcesOf(sending)[logicalId(sending)]!.Properties.Environment.Variables.PRIVACY_PAGE_URL);
    expect(value).toMatch(/^\{"Fn::Join":\["",\["https:\/\/",\{.+\},"\/privacy\/"\]\]\}$/);
    expect(value).not.toContain('execute-api');
    expect(api.webHosting.privacyUrl).toMatch(/^https:\/\/\$\{Token\[.+\]\}\/privacy\/$/);
  });

  test('the response headers policy sends the local gateway\'s content security policy, HSTS, nosniff, no referrer and DENY framing', () => {
    const security = one('AWS::CloudFront::ResponseHeadersPolicy').ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = withRegion(security.ContentSecurityPolicy.ContentSecurityPolicy);
    const local = webAppHeaders(cognitoEndpointOf(REGION))['content-security-policy'];
    expect(csp).toBe(local);
    expect(csp).toContain("frame-ancestors 'none'");
    // CloudFront's quota on a response headers policy's Content-Security-Policy value.
    expect(csp.length).toBeLessThan(1783);
    expect(security).toMatchObject({
      ContentSecurityPolicy: { Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 730 * 24 * 3600, IncludeSubdomains: true, Override: true },
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
    });
  });

  test('config.json is written at deploy with the user pool, its client, the region and the same-origin API base; pages no-cache, hashed bundles immutable', () => {
    const deployments = ofType(webResources(), 'Custom::CDKBucketDeployment').map(([, r]) => r.Properties);
    const pages = deployments.find((d) => d.SourceMarkers?.some((m: Json) => Object.keys(m).length));
    const bundles = deployments.find((d) => d !== pages);
    expect(pages.DestinationBucketKeyPrefix).toBe('app/');
    expect(pages.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    expect(pages.Exclude).toEqual(['assets/*']);
    expect(bundles.SystemMetadata).toEqual({ 'cache-control': 'public, max-age=31536000, immutable' });
    expect(bundles.Include).toEqual(['assets/*']);
    const markers = JSON.stringify(pages.SourceMarkers);
    // Source.jsonData: CloudFormation resolves each token into a marker the provider writes into config.json.
    const stateful = stateful_userPool();
    for (const value of [stateful.pool, stateful.client, 'AWS::Region']) expect(markers).toContain(value);
    expect(pages.DistributionPaths).toEqual(['/app/', '/app/index.html', '/app/config.json', '/app/favicon.svg', '/privacy/', '/app/privacy/index.html']);
  });

  test('the API stack outputs the app\'s URL on the distribution', () => {
    const output = apiT.toJSON().Outputs.WebAppUrl;
    expect(output.Value['Fn::Join'][1]).toEqual(['https://', expect.anything(), '/app/']);
  });
});

function stateful_userPool(): { pool: string; client: string } {
  const ids = Object.keys(statefulResources);
  return { pool: ids.find((id) => statefulResources[id]!.Type === 'AWS::Cognito::UserPool')!, client: ids.find((id) => statefulResources[id]!.Type === 'AWS::Cognito::UserPoolClient')! };
}

describe('deploy-time limits Lambda enforces', () => {
  test('every SQS event source: the queue hides a message at least as long as its function may run (Lambda refuses less)', () => {
    // Constructs, then each side's synthesised value: a queue without VisibilityTimeout has SQS's 30 s, a
    // function without Timeout Lambda's 3 s.
    const queues = new Map(app.node.findAll().filter((c): c is Queue => c instanceof Queue).map((q) => [q.queueArn, q]));
    const functions = new Map(allFunctions.map(({ fn }) => [fn.functionName, fn]));
    const mappings = app.node.findAll().filter((c): c is CfnEventSourceMapping => c instanceof CfnEventSourceMapping);
    expect(mappings).toHaveLength(QUEUE_LIST.length * 2);
    for (const mapping of mappings) {
      const queue = queues.get(mapping.eventSourceArn!);
      const fn = functions.get(mapping.functionName);
      expect([mapping.node.path, Boolean(queue), Boolean(fn)]).toEqual([mapping.node.path, true, true]);
      const visibility: number = resourcesOf(queue!)[Stack.of(queue!).getLogicalId(queue!.node.defaultChild as CfnQueue)]!.Properties.VisibilityTimeout ?? 30;
      const timeout: number = resourcesOf(fn!)[logicalId(fn!)]!.Properties.Timeout ?? 3;
      expect([mapping.node.path, visibility >= timeout]).toEqual([mapping.node.path, true]);
    }
  });

  test(`every dead-letter queue hides a message ${SQS_VISIBILITY_PER_FUNCTION_TIMEOUT}× the dead-letter consumer's timeout, from the catalogue`, () => {
    expect(DEAD_LETTER_QUEUE_VISIBILITY_SECONDS).toBe(SQS_VISIBILITY_PER_FUNCTION_TIMEOUT * DEAD_LETTERS.timeoutSeconds);
    for (const q of QUEUE_LIST) {
      statefulT.hasResourceProperties('AWS::SQS::Queue', Match.objectLike({ QueueName: queueName(PREFIX, q.key, true), VisibilityTimeout: DEAD_LETTER_QUEUE_VISIBILITY_SECONDS }));
    }
  });

  test(`by default no function asks for more than ${DEFAULT_MAX_LAMBDA_MEMORY_MB} MB (new accounts' quota)`, () => {
    const functions = [stateful, api, ...nestedStacks, Stack.of(api.webHosting)].flatMap((st) => ofType(resourcesOf(st), 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(ROUTES.length);
    for (const [id, f] of functions) expect([id, (f.Properties.MemorySize ?? 128) <= DEFAULT_MAX_LAMBDA_MEMORY_MB]).toEqual([id, true]);
    templateOf(api.workerFunctions.search).hasResourceProperties('AWS::Lambda::Function', Match.objectLike({ Description: 'Worker of the search queue', MemorySize: 2048 }));
  });

  test('-c maxLambdaMemoryMb must be a whole number of MB Lambda accepts', () => {
    expect(() => buildVariant({}, { maxLambdaMemoryMb: '20000' })).toThrow(/maxLambdaMemoryMb=20000/);
    expect(() => buildVariant({}, { maxLambdaMemoryMb: 'lots' })).toThrow(/maxLambdaMemoryMb=lots/);
  });
});

describe('Bedrock drafting (-c bedrockModelId)', () => {
  const bedrockStatements = (fn: ServiceFunction): Json[] =>
    ofType(templateOf(fn).toJSON().Resources, 'AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[])
      .filter((st) => asArray<string>(st.Action).some((a) => a.startsWith('bedrock:')));
  const arnText = (value: unknown) => JSON.stringify(value).replace(/\{"Ref":"AWS::(\w+)"\}/g, '<$1>').replace(/"/g, '').replace(/\{Fn::Join:\[,\[|\]\]\}/g, '').replace(/,/g, '');

  test('a foundation model id: InvokeModel on that model in this region, nothing else', () => {
    const model = 'anthropic.claude-3-haiku-20240307-v1:0';
    const { app: bareApp, api: bare } = buildVariant({ bedrockModelId: model });
    const drafting = bare.workerFunctions.drafting;
    templateOf(drafting).hasResourceProperties('AWS::Lambda::Function', Match.objectLike({ Environment: { Variables: Match.objectLike({ DRAFTER: 'bedrock', BEDROCK_MODEL_ID: model }) } }));
    const statements = bedrockStatements(drafting);
    expect(statements).toEqual([expect.objectContaining({ Effect: 'Allow', Action: 'bedrock:InvokeModel' })]);
    expect(statements.map((st) => arnText(st.Resource))).toEqual([`arn:<Partition>:bedrock:<Region>::foundation-model/${model}`]);
    expect(statements[0]!.Condition).toBeUndefined();
    expect(nagFindings(bareApp)).toEqual([]);
  });

  test.each([
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', false],
    ['global.anthropic.claude-sonnet-4-5-20250929-v1:0', true],
  ])('an inference profile id (%s): the profile here, and its model in the regions it routes to, only through that profile', (profileId, global) => {
    const model = profileId.slice(profileId.indexOf('.') + 1);
    const { app: profileApp, api: withProfile } = buildVariant({ bedrockModelId: profileId });
    const drafting = withProfile.workerFunctions.drafting;
    templateOf(drafting).hasResourceProperties('AWS::Lambda::Function', Match.objectLike({ Environment: { Variables: Match.objectLike({ BEDROCK_MODEL_ID: profileId }) } }));
    templateOf(drafting).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Action: 'bedrock:InvokeModel', Condition: { StringEquals: { 'bedrock:InferenceProfileArn': Match.anyValue() } } })]),
      }),
    });
    const statements = bedrockStatements(drafting);
    const profileArn = `arn:<Partition>:bedrock:<Region>:<AccountId>:inference-profile/${profileId}`;
    const unconditioned = statements.filter((st) => !st.Condition);
    expect(unconditioned.flatMap((st) => asArray(st.Resource).map(arnText))).toEqual([profileArn]);
    const conditioned = statements.filter((st) => st.Condition);
    expect(conditioned).toHaveLength(1);
    expect(arnText(conditioned[0]!.Condition.StringEquals['bedrock:InferenceProfileArn'])).toBe(profileArn);
    expect(asArray(conditioned[0]!.Resource).map(arnText).sort()).toEqual(
      [`arn:<Partition>:bedrock:*::foundation-model/${model}`, ...(global ? [`arn:<Partition>:bedrock:::foundation-model/${model}`] : [])].sort(),
    );
    // No other function may invoke Bedrock.
    const others = allApiTemplatesOf(withProfile).filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r).includes('bedrock:') && !JSON.stringify(r.Properties.Roles).includes('DraftingWorkerFn'));
    expect(others).toEqual([]);
    expect(nagFindings(profileApp)).toEqual([]);
  });
});

describe('Language model for query understanding and evidence judgement (-c languageModelId)', () => {
  const bedrockPolicies = (stacks: Json[]) => stacks.filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r).includes('bedrock:'));
  const arnText = (value: unknown) => JSON.stringify(value).replace(/\{"Ref":"AWS::(\w+)"\}/g, '<$1>').replace(/"/g, '').replace(/\{Fn::Join:\[,\[|\]\]\}/g, '').replace(/,/g, '');

  test('off by default: no function has the switch, the model id or any Bedrock permission', () => {
    const env = JSON.stringify(allApiTemplatesOf(api).filter((r) => r.Type === 'AWS::Lambda::Function').map((r) => r.Properties.Environment));
    expect(env).not.toMatch(/LANGUAGE_MODEL/);
    expect(bedrockPolicies(allApiTemplatesOf(api))).toEqual([]);
  });

  test('an inference profile: the search worker alone gets the switch, the id and InvokeModel on that profile and, through it only, its model', () => {
    const profileId = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
    const { app: lmApp, api: withModel } = buildVariant({ languageModelId: profileId });
    const search = withModel.workerFunctions.search;
    templateOf(search).hasResourceProperties('AWS::Lambda::Function', Match.objectLike({ Environment: { Variables: Match.objectLike({ LANGUAGE_MODEL: 'bedrock', LANGUAGE_MODEL_ID: profileId }) } }));
    const statements = ofType(templateOf(search).toJSON().Resources, 'AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[])
      .filter((st) => asArray<string>(st.Action).some((a) => a.startsWith('bedrock:')));
    expect(statements.flatMap((st) => asArray<string>(st.Action))).toEqual(['bedrock:InvokeModel', 'bedrock:InvokeModel']);
    const profileArn = `arn:<Partition>:bedrock:<Region>:<AccountId>:inference-profile/${profileId}`;
    expect(statements.filter((st) => !st.Condition).flatMap((st) => asArray(st.Resource).map(arnText))).toEqual([profileArn]);
    const conditioned = statements.filter((st) => st.Condition);
    expect(asArray(conditioned[0]!.Resource).map(arnText)).toEqual([`arn:<Partition>:bedrock:*::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0`]);
    expect(arnText(conditioned[0]!.Condition.StringEquals['bedrock:InferenceProfileArn'])).toBe(profileArn);
    const others = bedrockPolicies(allApiTemplatesOf(withModel)).filter((r) => !JSON.stringify(r.Properties.Roles).includes('SearchWorkerFn'));
    expect(others).toEqual([]);
    const otherEnv = allApiTemplatesOf(withModel).filter((r) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r).includes('LANGUAGE_MODEL'));
    expect(otherEnv).toHaveLength(1);
    expect(nagFindings(lmApp)).toEqual([]);
  });
});

describe('SMTP relay credentials (-c smtpRelay)', () => {
  const relay = buildVariant({ smtpRelay: 'smtp.relay.example:587' });
  const sending = relay.api.workerFunctions.sending;
  const secretId = () => relay.stateful.getLogicalId(relay.stateful.smtpRelaySecret!.node.defaultChild as never);

  test('the stateful stack creates a retained secret for the relay’s username and password', () => {
    const t = Template.fromStack(relay.stateful);
    t.hasResource('AWS::SecretsManager::Secret', Match.objectLike({ DeletionPolicy: 'Retain', Properties: Match.objectLike({ Description: Match.stringLikeRegexp('SMTP relay smtp\\.relay\\.example:587') }) }));
    expect(secretId()).toMatch(/^SmtpRelayCredentials/);
    // Without smtpRelay there is no relay secret, and the sending worker has no relay settings.
    expect(stateful.smtpRelaySecret).toBeUndefined();
    expect(JSON.stringify(resourcesOf(api.workerFunctions.sending)[logicalId(api.workerFunctions.sending)].Properties.Environment.Variables)).not.toMatch(/SMTP_/);
  });

  test('the sending worker gets the relay and the secret’s ARN, and may read that secret', () => {
    const t = templateOf(sending);
    t.hasResourceProperties('AWS::Lambda::Function', Match.objectLike({
      Description: 'Worker of the sending queue',
      Environment: { Variables: Match.objectLike({ SMTP_HOST: 'smtp.relay.example', SMTP_PORT: '587', SMTP_RELAY_SECRET_ARN: Match.anyValue() }) },
    }));
    const env: Json = resourcesOf(sending)[logicalId(sending)]!.Properties.Environment.Variables;
    expect(JSON.stringify(env.SMTP_RELAY_SECRET_ARN)).toContain(secretId());
    expect(env.SMTP_USER).toBeUndefined();
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'], Resource: Match.arrayWith([{ 'Fn::ImportValue': Match.stringLikeRegexp(secretId()) }]) })]),
      }),
    });
  });

  test('no other function may read the relay secret', () => {
    const readers = allApiTemplatesOf(relay.api)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.PolicyDocument).includes(secretId()))
      .map((r) => JSON.stringify(r.Properties.Roles));
    expect(readers).toHaveLength(1);
    expect(readers[0]).toMatch(/SendingWorkerFn/);
    const statefulPolicies = ofType(Template.fromStack(relay.stateful).toJSON().Resources, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p).includes(secretId()));
    expect(statefulPolicies).toEqual([]);
  });

  test('an existing secret named by -c smtpRelaySecret is granted by name instead, and none is created', () => {
    const named = buildVariant({ smtpRelay: 'smtp.relay.example:587', smtpRelaySecret: 'relay/credentials' });
    expect(ofType(Template.fromStack(named.stateful).toJSON().Resources, 'AWS::SecretsManager::Secret').map(([id]) => id)).not.toContainEqual(expect.stringMatching(/SmtpRelay/));
    const fn = named.api.workerFunctions.sending;
    const reads = statementsOf(fn).filter((st) => asArray<string>(st.Action).includes('secretsmanager:GetSecretValue')).map((st) => JSON.stringify(st.Resource));
    expect(reads).toContainEqual(expect.stringContaining(':secret:relay/credentials-??????'));
    expect(nagFindings(named.app)).toEqual([]);
    expect(() => buildVariant({ smtpRelaySecret: 'relay/credentials' })).toThrow(/smtpRelaySecret needs -c smtpRelay/);
  });

  test('cdk-nag reports no unacknowledged finding with the relay', () => {
    expect(nagFindings(relay.app)).toEqual([]);
  });
});

/** Every resource of an API stack and its nested stacks (function, role policy and alarm stacks). */
function allApiTemplatesOf(apiStack: typeof api): Json[] {
  const stacks: Stack[] = [apiStack, ...apiStack.contextStacks.values(), Stack.of(apiStack.webHosting)];
  return stacks.flatMap((st) => Object.values(Template.fromStack(st).toJSON().Resources as Record<string, Json>));
}
