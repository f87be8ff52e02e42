import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnPolicy } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { MAILBOX_CONNECT_MODULES } from '../../lib/api-stack.js';
import { REPO_ROOT, ServiceFunction } from '../../lib/constructs/service-function.js';
import { createServiceStacks } from '../../lib/service.js';
import { pascal } from '../../lib/stateful-stack.js';
import {
  LANGUAGE_MODEL_ENVIRONMENT,
  QUEUE_SEND_ACTIONS,
  SCHEDULER_ACTIONS,
  TABLE_READ_ACTIONS,
  TABLE_WRITE_ACTIONS,
  grantedEnvironment,
  resourceEnvironment,
  type Bindings,
} from '../../shared/catalog/bindings.js';
import { FUNCTIONS, routeFunctionName, workerFunctionName, type FunctionDef } from '../../shared/catalog/functions.js';
import { QUEUES, QUEUE_LIST } from '../../shared/catalog/queues.js';
import { TABLES, TABLE_LIST } from '../../shared/catalog/tables.js';
import { METRICS_NAMESPACE_ENV } from '../../shared/core/metrics.js';
import { bundleUses, type BundleUses } from '../support/bundle-uses.js';

/**
 * The template against the catalogue, for every Lambda function of every stack the app synthesizes (the stateful
 * stack, the API stack and each nested stack): a function the stacks deploy has exactly the environment and the IAM
 * statements its catalogue entry's bindings give (shared/catalog/functions.ts; the twin runs it with the same), and
 * sets every resource variable its bundle reads. test/infra/grants.test.ts holds the third side: bundle against
 * catalogue. stack.test.ts checks the finer points (conditions' values, exports, nag).
 */

type Json = Record<string, any>;
const STAGE = 'test';
const PREFIX = `people-outreach-${STAGE}`;
const SES_IDENTITIES = ['mail.example.com', 'sender@other.example'];
const CDK_CONTEXT: Json = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context;

// bin/app.ts's wiring (lib/service.ts), bundling skipped.
const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
const { stateful, api } = createServiceStacks(app, { stage: STAGE, sesIdentities: SES_IDENTITIES });
const stacks = app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
const templates = new Map(stacks.map((s) => [s, Template.fromStack(s).toJSON() as Json]));
const resourcesOf = (c: IConstruct): Record<string, Json> => templates.get(Stack.of(c))!.Resources;
const asArray = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

/** Each catalogue function's construct, found through the stacks' own handles (none is looked up by name). */
function deployedByName(): Map<string, ServiceFunction> {
  const byName = new Map<string, ServiceFunction>();
  for (const [route, fn] of api.routeFunctions) byName.set(routeFunctionName(route), fn);
  for (const q of QUEUE_LIST) byName.set(workerFunctionName(q.key), api.workerFunctions[q.key]);
  byName.set('api-key-authorizer', api.apiKeyAuthorizer.fn);
  byName.set('dead-letters', api.housekeeping.deadLetterFunction);
  byName.set('sweeper', api.housekeeping.sweeperFunction);
  byName.set('mailbox-poll', api.mailboxPoll.pollFunction);
  byName.set('directory-import', stateful.node.findChild('DirectoryImport').node.findChild('Fn') as ServiceFunction);
  byName.set('inbound-mail', stateful.node.findChild('InboundMail').node.findChild('Fn') as ServiceFunction);
  return byName;
}
const deployed = deployedByName();

/** Lambda functions CDK adds for its own custom resources: not the service's code, and none may touch its data. */
const CDK_PROVIDED: { path: RegExp; why: string }[] = [
  { path: /\/BucketNotificationsHandler[0-9a-f]{32}\/Resource$/, why: 'S3 bucket notifications (the inbound and import triggers)' },
  { path: /\/Custom::CDKBucketDeployment[0-9A-F]{32}\/Resource$/, why: 'the web app’s BucketDeployment' },
];

const fnResource = (fn: ServiceFunction): Json => resourcesOf(fn)[Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement)]!;

/** Every statement of a role: the policies attached to it in its stack, and a usage-plan grant kept in the API stack. */
function roleStatements(stack: Stack, roleId: string, fn?: ServiceFunction): Json[] {
  const resources: Record<string, Json> = templates.get(stack)!.Resources;
  const own = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: Json) => ref.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[]);
  const grant = fn && api.usagePlanGrants.get(fn);
  const extra = grant ? (templates.get(api)!.Resources[api.getLogicalId(grant.node.defaultChild as CfnPolicy)].Properties.PolicyDocument.Statement as Json[]) : [];
  return [...own, ...extra];
}

const beforeId = '(?<=["]|ExportsOutputFnGetAtt|ExportsOutputRef)';

/** A resource of a statement (or a variable's value) named after what it is: `table:outreach/index/due`, `dlq:search`… */
function resourceLabel(resource: unknown): string {
  if (resource === '*') return '*';
  const text = JSON.stringify(resource);
  const has = (id: string) => new RegExp(`${beforeId}${id}[0-9A-F]{8}`).test(text);
  for (const t of TABLE_LIST) {
    if (has(`${pascal(t.key)}Table`)) return `table:${t.key}${text.match(/\/index\/([\w-]+)/)?.[0] ?? ''}`;
  }
  for (const q of QUEUE_LIST) {
    if (has(`${pascal(q.key)}Queue`)) return `queue:${q.key}`;
    if (has(`${pascal(q.key)}Dlq`)) return `dlq:${q.key}`;
  }
  if (has('AsyncFailuresDlq')) return 'queue:async-failures';
  if (has('SchedulerRole')) return 'role:scheduler';
  if (has('SecretBoxKey')) return 'secret:secret-box';
  if (has('MailboxProviders')) return 'secret:mailbox-providers';
  if (has('Users')) return 'user-pool';
  if (has('InboundMailBucket')) return text.includes('"/inbound/*"') ? 'inbound-bucket:inbound/*' : `inbound-bucket:${text}`;
  if (has('DirectoryImportBucket') || text.includes(`${PREFIX}-directory-bucket-arn`)) {
    if (text.includes('/directory/directory.jsonl')) return 'directory-bucket:directory/directory.jsonl';
    if (text.includes('/index/*')) return 'directory-bucket:index/*';
    return 'directory-bucket';
  }
  const schedules = text.match(/:schedule\/([^"]+)"/);
  if (schedules) return `schedules:${schedules[1]}`;
  const ses = text.match(/:(identity|configuration-set)\/([^"]+)"/);
  if (ses) return `ses:${ses[1]}/${ses[2]}`;
  const apiGateway = text.match(/:apigateway:",\{"Ref":"AWS::Region"\},"::(\/[^"]*)"(?:,\{"Ref":"[^"]+"\},"(\/[^"]*)")?/);
  if (apiGateway) return `apigateway:${apiGateway[1]}${apiGateway[2] ? `{plan}${apiGateway[2]}` : ''}`;
  return `unknown:${text}`;
}

function conditionLabel(condition: unknown): string {
  if (condition === undefined) return '';
  const text = JSON.stringify(condition);
  if (text.includes('RATE#')) return ' if rate buckets';
  if (text.includes('dynamodb:Attributes')) return ' if key use';
  if (text.includes('ses:FromAddress')) return ' if from the identities';
  if (text.includes('iam:PassedToService')) return ' if passed to scheduler';
  if (text.includes('s3:prefix')) return ' if under index/';
  return ` if ${text}`;
}

/** A role's statements as one `action resource [if condition]` line per action and resource (minimizePolicies merges statements). */
function grantLines(statements: Json[]): string[] {
  const lines = new Set<string>();
  for (const s of statements) {
    if (s.Effect !== 'Allow') lines.add(`deny ${JSON.stringify(s)}`);
    for (const action of asArray<string>(s.Action)) for (const r of asArray(s.Resource)) lines.add(`${action} ${resourceLabel(r)}${conditionLabel(s.Condition)}`);
  }
  return [...lines].sort();
}

const CONSUME_ACTIONS = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
const TRACING = ['xray:PutTelemetryRecords *', 'xray:PutTraceSegments *'];

/**
 * What a function's event source needs beside its bindings, from the queue catalogue: a worker consumes its own
 * queue, the dead-letter consumer every DLQ; the two S3-fed functions have an on-failure queue for Lambda's
 * asynchronous invocations, and the inbound-mail worker reads the object SES stored (never writes it).
 */
function eventSourceLines(name: string): string[] {
  const consume = (label: string) => CONSUME_ACTIONS.map((a) => `${a} ${label}`);
  const worker = QUEUE_LIST.find((q) => workerFunctionName(q.key) === name);
  if (worker) return consume(`queue:${worker.key}`);
  if (name === 'dead-letters') return QUEUE_LIST.flatMap((q) => consume(`dlq:${q.key}`));
  if (name === 'directory-import') return ['sqs:SendMessage queue:async-failures'];
  if (name === 'inbound-mail') return ['sqs:SendMessage queue:async-failures', 's3:GetObject inbound-bucket:inbound/*'];
  return [];
}

/** The lines a catalogue `Bindings` object must become (lib/constructs/service-function.ts, written out again). */
function bindingLines(b: Bindings): string[] {
  const lines: string[] = [];
  const all = (actions: readonly string[], resources: string[], condition = '') => {
    for (const a of actions) for (const r of resources) lines.push(`${a} ${r}${condition}`);
  };
  for (const [key, mode] of Object.entries(b.tables ?? {}) as [keyof typeof TABLES, 'read' | 'readwrite'][]) {
    all(mode === 'read' ? TABLE_READ_ACTIONS : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS], [`table:${key}`, ...TABLES[key].gsis.map((g) => `table:${key}/index/${g.name}`)]);
  }
  for (const key of Object.keys(b.queues ?? {})) all(QUEUE_SEND_ACTIONS, [`queue:${key}`]);
  if (b.scheduler) {
    all(SCHEDULER_ACTIONS, [`schedules:${PREFIX}-schedules/*`]);
    lines.push('iam:PassRole role:scheduler if passed to scheduler');
  }
  if (b.keyThrottle) lines.push('dynamodb:UpdateItem table:accounts if rate buckets');
  if (b.keyUse) lines.push('dynamodb:UpdateItem table:accounts if key use');
  if (b.mail) all(['ses:SendEmail', 'ses:SendRawEmail'], [...SES_IDENTITIES.map((i) => `ses:identity/${i}`), `ses:configuration-set/${PREFIX}-mail`], ' if from the identities');
  if (b.secrets) all(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'], ['secret:secret-box']);
  if (b.mailboxProviders) all(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'], ['secret:mailbox-providers']);
  // Adding a key to this stack's plan is granted by id to the routes that create keys (usagePlanKeyLines), not to the sweeper that only rolls keys back.
  if (b.apiKeys) lines.push('apigateway:GET apigateway:/usageplans', 'apigateway:GET apigateway:/apikeys', 'apigateway:POST apigateway:/apikeys', 'apigateway:DELETE apigateway:/apikeys/*');
  if (b.userPool) all(['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword'], ['user-pool']);
  if (b.directorySource) lines.push('s3:GetObject directory-bucket:directory/directory.jsonl', 's3:GetObject directory-bucket:index/*', 's3:ListBucket directory-bucket if under index/');
  if (b.directoryImport) {
    all(['s3:GetObject', 's3:GetObjectVersion'], ['directory-bucket:directory/directory.jsonl']);
    if (b.directoryImport === 'readwrite') all(['s3:PutObject', 's3:DeleteObject'], ['directory-bucket:index/*']);
  }
  // languageModel: a grant only with -c languageModelId (stack.test.ts), none in this synth.
  return lines;
}

/** The API-key authorizer's `read` of accounts is narrowed to GetItem on the table itself (lib/api-stack.ts; the twin narrows it the same way). */
function expectedGrantLines(f: FunctionDef): string[] {
  const bindings = f.kind === 'authorizer' ? [] : bindingLines(f.bindings);
  const authorizer = f.kind === 'authorizer' ? ['dynamodb:GetItem table:accounts'] : [];
  const usagePlanKeyLines = f.kind === 'route' && f.bindings.apiKeys ? ['apigateway:POST apigateway:/usageplans/{plan}/keys'] : [];
  return [...new Set([...TRACING, ...bindings, ...usagePlanKeyLines, ...authorizer, ...eventSourceLines(f.name)])].sort();
}

// The environment: the variables every function has, those its bindings give (under their AWS names: on the twin a
// secret's value stands where AWS has its ARN; the language model's come only with -c languageModelId), and a few
// the stack sets from elsewhere, each on the functions that read it.
const BASE_ENVIRONMENT = ['POWERTOOLS_SERVICE_NAME', METRICS_NAMESPACE_ENV, 'LOG_LEVEL', 'SERVICE_STAGE'];
const NOT_IN_AWS = new Set(['SECRET_BOX_KEY', 'MAILBOX_PROVIDERS', ...LANGUAGE_MODEL_ENVIRONMENT]);
const awsEnvironment = (b: Bindings) => grantedEnvironment(b, TABLES, QUEUES).filter((v) => !NOT_IN_AWS.has(v));
const OAUTH_FUNCTIONS = new Set(FUNCTIONS.filter((f) => MAILBOX_CONNECT_MODULES.includes(f.module)).map((f) => f.name));
function otherEnvironment(name: string): string[] {
  if (OAUTH_FUNCTIONS.has(name)) return ['OAUTH_REDIRECT_URI', 'WEB_APP_URL'];
  if (name === 'sending-worker') return ['PUBLIC_BASE_URL', 'PRIVACY_PAGE_URL'];
  if (name === 'POST /api/public/v1/privacy-requests/') return ['PRIVACY_PAGE_URL', 'PRIVACY_MAIL_FROM'];
  return [];
}
const environmentOf = (fn: ServiceFunction): Json => fnResource(fn).Properties.Environment?.Variables ?? {};

describe('every Lambda function of every stack is a catalogue function, or one of CDK’s own', () => {
  test('each AWS::Lambda::Function resource is one ServiceFunction of the catalogue or a named CDK provider; each catalogue function is deployed once', () => {
    const byConstruct = new Map([...deployed].map(([name, fn]) => [fn, name]));
    const seen: string[] = [];
    const unexplained: string[] = [];
    let resources = 0;
    for (const stack of stacks) {
      const elements = new Map(
        stack.node
          .findAll()
          .filter((c): c is CfnElement => CfnElement.isCfnElement(c) && Stack.of(c) === stack)
          .map((el) => [stack.getLogicalId(el), el]),
      );
      for (const [id, r] of Object.entries(templates.get(stack)!.Resources as Record<string, Json>)) {
        if (r.Type !== 'AWS::Lambda::Function') continue;
        resources++;
        const element = elements.get(id)!;
        const owner = element.node.scope;
        if (owner instanceof ServiceFunction) {
          const name = byConstruct.get(owner);
          if (name) seen.push(name);
          else unexplained.push(`${element.node.path}: a ServiceFunction no catalogue entry names`);
        } else if (!CDK_PROVIDED.some((p) => p.path.test(element.node.path))) {
          unexplained.push(`${element.node.path}: not a ServiceFunction, and not a known CDK provider`);
        }
      }
    }
    expect(unexplained).toEqual([]);
    expect(seen.sort()).toEqual(FUNCTIONS.map((f) => f.name).sort());
    expect(resources).toBe(FUNCTIONS.length + CDK_PROVIDED.length);
    expect(stacks.map((s) => s.node.path)).toEqual(expect.arrayContaining([`${PREFIX}-stateful`, `${PREFIX}-api`, `${PREFIX}-api/Workers`]));
  });

  test('CDK’s own functions name no resource of the service and may touch none of its data', () => {
    const resourceVariables = resourceEnvironment(TABLES, QUEUES);
    for (const stack of stacks) {
      for (const el of stack.node.findAll().filter((c): c is CfnElement => CfnElement.isCfnElement(c) && Stack.of(c) === stack)) {
        if (!CDK_PROVIDED.some((p) => p.path.test(el.node.path))) continue;
        const r = templates.get(stack)!.Resources[stack.getLogicalId(el)];
        expect([el.node.path, Object.keys(r.Properties.Environment?.Variables ?? {}).filter((v) => resourceVariables.has(v))]).toEqual([el.node.path, []]);
        const roleId = r.Properties.Role['Fn::GetAtt'][0];
        // The notifications handler configures the buckets' notifications (s3:PutBucketNotification), never their objects.
        const data = grantLines(roleStatements(stack, roleId))
          .filter((l) => !l.startsWith('s3:PutBucketNotification '))
          .filter((l) => /^(dynamodb|sqs|secretsmanager|ses|scheduler|cognito-idp|apigateway):/.test(l) || / (table|queue|dlq|secret|inbound-bucket|directory-bucket|user-pool)/.test(l));
        expect([el.node.path, data]).toEqual([el.node.path, []]);
      }
    }
  });
});

describe.each(FUNCTIONS.map((f) => [f.name, f] as const))('%s: the template is its catalogue entry', (name, f) => {
  const fn = () => deployed.get(name)!;

  test('environment: exactly the base variables, those its bindings give and the stack’s own for it; each naming its own table or queue', () => {
    const env = environmentOf(fn());
    expect(Object.keys(env).sort()).toEqual([...new Set([...BASE_ENVIRONMENT, ...awsEnvironment(f.bindings), ...otherEnvironment(name)])].sort());
    for (const key of Object.keys(f.bindings.tables ?? {}) as (keyof typeof TABLES)[]) expect([TABLES[key].env, resourceLabel(env[TABLES[key].env])]).toEqual([TABLES[key].env, `table:${key}`]);
    for (const key of Object.keys(f.bindings.queues ?? {}) as (keyof typeof QUEUES)[]) {
      expect([QUEUES[key].urlEnv, resourceLabel(env[QUEUES[key].urlEnv])]).toEqual([QUEUES[key].urlEnv, `queue:${key}`]);
      expect([QUEUES[key].arnEnv, resourceLabel(env[QUEUES[key].arnEnv])]).toEqual([QUEUES[key].arnEnv, `queue:${key}`]);
    }
  });

  test('IAM: exactly the statements its bindings and its event source give, on the basic execution role and nothing else', () => {
    const r = fnResource(fn());
    const roleId = r.Properties.Role['Fn::GetAtt'][0];
    const role = resourcesOf(fn())[roleId]!.Properties;
    expect(role.Policies).toBeUndefined();
    expect(JSON.stringify(role.ManagedPolicyArns)).toMatch(/^\[\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole"\]\]\}\]$/);
    expect(grantLines(roleStatements(Stack.of(fn()), roleId, fn()))).toEqual(expectedGrantLines(f));
  });
});

describe('the bundles against the template: every resource variable a function’s code reads is set on it', () => {
  let uses: Map<string, BundleUses>;
  beforeAll(async () => {
    uses = await bundleUses([...new Set(FUNCTIONS.map((f) => f.module))]);
  }, 240_000);

  /** What the bundle reaches, as bindings (test/support/bundle-uses.ts reads them as grants.test.ts does). */
  const usedBindings = (u: BundleUses): Bindings => ({
    tables: u.tables,
    queues: Object.fromEntries(u.queues.map((q) => [q, 'send' as const])),
    scheduler: u.scheduler,
    mail: u.mail,
    secrets: u.secrets,
    mailboxProviders: u.mailboxProviders,
    userPool: u.userPool,
    apiKeys: u.apiKeys,
    directorySource: u.directory,
    languageModel: u.languageModel,
  });

  test('no function lacks a variable its bundle reads (a table, queue, Scheduler, SES, secret, user pool, usage plan or directory variable)', () => {
    const missing = FUNCTIONS.map((f) => {
      const set = new Set(Object.keys(environmentOf(deployed.get(f.name)!)));
      return [f.name, awsEnvironment(usedBindings(uses.get(f.module)!)).filter((v) => !set.has(v))] as const;
    }).filter(([, vars]) => vars.length > 0);
    expect(missing).toEqual([]);
  });

  test('the check reads real uses: mail_evidence (a key with an underscore) is reached by the functions that record a bounce', () => {
    const reach = FUNCTIONS.filter((f) => uses.get(f.module)!.tables.mail_evidence === 'readwrite').map((f) => f.name);
    expect(reach).toEqual(expect.arrayContaining(['inbound-mail', 'dead-letters', 'mail-events-worker', 'mailbox-poll']));
    // And it would catch the variable missing: the inbound-mail function's environment without it.
    const env = new Set(Object.keys(environmentOf(deployed.get('inbound-mail')!)));
    env.delete(TABLES.mail_evidence.env);
    expect(awsEnvironment(usedBindings(uses.get('functions/inbound/ses-s3.ts')!)).filter((v) => !env.has(v))).toEqual([TABLES.mail_evidence.env]);
  });
});
