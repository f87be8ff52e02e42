import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { createServiceStacks, type ServiceOptions } from '../../lib/service.js';
import { PROFILE_ONLY_MODEL_PREFIXES, REPO_ROOT, assertInvocableModelId, type ServiceFunction } from '../../lib/constructs/service-function.js';
import { mailConfigurationSetName } from '../../lib/constructs/mail-events.js';
import { DEAD_LETTERS, QUEUE_LIST } from '../../shared/catalog/queues.js';

/**
 * What a first deploy into a fresh AWS account runs into (docs/deploying.md "First deploy into a fresh account"),
 * checked on the synthesised templates: the bootstrap qualifier, Bedrock models that run only through an inference
 * profile, the SES sandbox, a small Lambda concurrency quota, a redeploy after `cdk destroy`, and log groups that
 * never expire.
 */
type Json = Record<string, any>;

const STAGE = 'test';
const PREFIX = `people-outreach-${STAGE}`;
const CDK_CONTEXT: Json = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context;
const SES_IDENTITIES = ['mail.example.com', 'sender@other.example'];

/** bin/app.ts's wiring with more options and CDK context (`-c key=value`), bundling skipped. */
function build(opts: Partial<ServiceOptions> = {}, context: Json = {}) {
  const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
  return { app, ...createServiceStacks(app, { stage: STAGE, sesIdentities: SES_IDENTITIES, ...opts }) };
}

/** Every stack of the app, nested stacks included, with its synthesised template (which runs the aspects). */
function templates(app: App): { stack: Stack; resources: Record<string, Json> }[] {
  const stacks = app.node.findAll().filter((c): c is Stack => c instanceof Stack);
  const assembly = app.synth();
  return stacks.map((stack) => ({ stack, resources: (JSON.parse(readFileSync(join(assembly.directory, stack.templateFile), 'utf8')) as Json).Resources ?? {} }));
}

/** Both cdk-nag packs bin/app.ts attaches: every finding nobody acknowledged. */
function nagFindings(app: App): string[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack.validateScope(app).violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
  );
}

const ofType = (resources: Record<string, Json>, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const asArray = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

function sesStatementsOf(fn: ServiceFunction): Json[] {
  const app = fn.node.root as App;
  const { resources } = templates(app).find((t) => t.stack === Stack.of(fn))!;
  return ofType(resources, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(Stack.of(fn).getLogicalId(fn.role!.node.defaultChild as never)))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[])
    .filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('ses:')));
}

describe('cdk bootstrap: the qualifier comes from the synthesizer, never spelt out', () => {
  const assetBucketsNamed = (app: App) =>
    templates(app)
      .flatMap(({ resources }) => JSON.stringify(resources).match(/cdk-[a-z0-9]+-assets-/g) ?? [])
      .filter((v, i, all) => all.indexOf(v) === i);

  test('the default qualifier: CDK\'s asset bucket, and the BucketDeployment provider\'s grant on it acknowledged', () => {
    const { app } = build();
    expect(assetBucketsNamed(app)).toEqual(['cdk-hnb659fds-assets-']);
    expect(nagFindings(app)).toEqual([]);
  });

  test('a custom qualifier (`cdk bootstrap --qualifier`, `@aws-cdk/core:bootstrapQualifier`): its asset bucket, and still no unacknowledged finding', () => {
    const { app } = build({}, { '@aws-cdk/core:bootstrapQualifier': 'ops42qual' });
    expect(assetBucketsNamed(app)).toEqual(['cdk-ops42qual-assets-']);
    expect(nagFindings(app)).toEqual([]);
  });

  test('lib/ and bin/ name no bootstrap qualifier', () => {
    for (const file of ['lib/constructs/web-hosting.ts', 'lib/api-stack.ts', 'lib/stateful-stack.ts', 'bin/app.ts']) {
      expect([file, readFileSync(join(REPO_ROOT, file), 'utf8').includes('hnb659fds')]).toEqual([file, false]);
    }
  });
});

describe('Bedrock models served only through a cross-Region inference profile', () => {
  test.each(PROFILE_ONLY_MODEL_PREFIXES.map((p) => [p]))('a bare %s… id is refused at synth, naming the profile ids to use', (prefix) => {
    const id = `${prefix}-20990101-v1:0`;
    expect(() => assertInvocableModelId('bedrockModelId', id)).toThrow(`-c bedrockModelId=${id}`);
    expect(() => assertInvocableModelId('bedrockModelId', id)).toThrow(`us.${id}, eu.${id}, apac.${id} or global.${id}`);
    for (const profile of ['us', 'eu', 'apac', 'global']) expect(() => assertInvocableModelId('bedrockModelId', `${profile}.${id}`)).not.toThrow();
  });

  test('both context options are checked before anything is built; models served on demand pass', () => {
    const sonnet = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    expect(() => build({ bedrockModelId: sonnet })).toThrow(`-c bedrockModelId=${sonnet}: Amazon Bedrock runs anthropic.claude-sonnet-4… only through a cross-Region inference profile`);
    expect(() => build({ languageModelId: 'anthropic.claude-haiku-4-5-20251001-v1:0' })).toThrow('-c languageModelId=anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(() => build({ bedrockModelId: `us.${sonnet}`, languageModelId: 'anthropic.claude-3-haiku-20240307-v1:0' })).not.toThrow();
  });
});

describe('SES sandbox (-c sesSandbox=true)', () => {
  const configurationSetArn = `:configuration-set/${mailConfigurationSetName(PREFIX)}"`;

  test('without it the sending grant names the sender identities only', () => {
    const [statement, ...more] = sesStatementsOf(build().api.workerFunctions.sending);
    expect(more).toEqual([]);
    const resources = JSON.stringify(statement!.Resource);
    for (const identity of SES_IDENTITIES) expect(resources).toContain(`:identity/${identity}"`);
    expect(resources).not.toContain(':identity/*');
  });

  test('with it the grant covers every identity of the account and region (SES checks each recipient\'s too), From still limited to sesIdentities', () => {
    const { app, api } = build({}, { sesSandbox: 'true' });
    const [statement, ...more] = sesStatementsOf(api.workerFunctions.sending);
    expect(more).toEqual([]);
    expect(statement!.Action).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
    const resources = asArray(statement!.Resource).map((r) => JSON.stringify(r));
    expect(resources).toHaveLength(2);
    expect(resources.some((r) => r.endsWith(':identity/*"]]}'))).toBe(true);
    expect(resources.some((r) => r.includes(configurationSetArn.slice(0, -1)))).toBe(true);
    expect(statement!.Condition).toEqual({ StringLike: { 'ses:FromAddress': ['*@mail.example.com', 'sender@other.example'] } });
    expect(nagFindings(app)).toEqual([]);
  });

  test('it takes true or false only', () => {
    expect(() => build({}, { sesSandbox: 'yes' })).toThrow('-c sesSandbox=yes');
    expect(() => build({}, { sesSandbox: 'false' })).not.toThrow();
  });
});

describe('Lambda concurrency on a small account quota', () => {
  const mappings = (app: App) => templates(app).flatMap(({ resources }) => ofType(resources, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties));
  const isDlq = (m: Json) => /Dlq/.test(JSON.stringify(m.EventSourceArn));

  test('by default every dead-letter source runs at most 2 containers, work queues keep the catalogue\'s caps', () => {
    const all = mappings(build().app);
    expect(all).toHaveLength(QUEUE_LIST.length * 2);
    for (const m of all.filter(isDlq)) expect(m.ScalingConfig).toEqual({ MaximumConcurrency: DEAD_LETTERS.maxConcurrency });
    const caps = all.filter((m) => !isDlq(m)).map((m) => m.ScalingConfig?.MaximumConcurrency ?? null).sort();
    expect(caps).toEqual(QUEUE_LIST.map((q) => q.worker.maxConcurrency ?? null).sort());
  });

  test('-c maxWorkerConcurrency=2 caps every SQS event source at 2', () => {
    const all = mappings(build({}, { maxWorkerConcurrency: '2' }).app);
    expect(all).toHaveLength(QUEUE_LIST.length * 2);
    for (const m of all) expect(m.ScalingConfig).toEqual({ MaximumConcurrency: 2 });
  });

  test('-c maxWorkerConcurrency lowers the catalogue\'s caps, never raises them', () => {
    const all = mappings(build({}, { maxWorkerConcurrency: '5' }).app).filter((m) => !isDlq(m));
    const caps = all.map((m) => m.ScalingConfig.MaximumConcurrency).sort((a, b) => a - b);
    expect(caps).toEqual(QUEUE_LIST.map((q) => Math.min(q.worker.maxConcurrency ?? 5, 5)).sort((a, b) => a - b));
  });

  test('-c maxWorkerConcurrency is an event source\'s range, 2 to 1000', () => {
    for (const bad of ['1', '1001', 'few']) expect(() => build({}, { maxWorkerConcurrency: bad })).toThrow(`-c maxWorkerConcurrency=${bad}`);
  });
});

describe('cdk destroy, then cdk deploy: nothing of a fixed name stays behind in the API stack', () => {
  test('the WAF log group (named aws-waf-logs-…, as WAF requires) goes with its stack', () => {
    const { app, api } = build();
    const { resources } = templates(app).find((t) => t.stack === api)!;
    const waf = ofType(resources, 'AWS::Logs::LogGroup').filter(([, g]) => g.Properties.LogGroupName === `aws-waf-logs-${PREFIX}-api`);
    expect(waf).toHaveLength(1);
    expect(waf[0]![1]).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete', Properties: { RetentionInDays: 30 } });
  });

  test('every resource of the API stacks that the stack names itself is removed with it', () => {
    const { app, api } = build();
    const apiStacks = templates(app).filter(({ stack }) => stack === api || stack.nestedStackParent === api);
    const kept = apiStacks.flatMap(({ resources }) =>
      Object.entries(resources)
        .filter(([, r]) => r.DeletionPolicy === 'Retain' && Object.entries(r.Properties ?? {}).some(([k, v]) => /Name$/.test(k) && typeof v === 'string'))
        .map(([id]) => id),
    );
    expect(kept).toEqual([]);
  });
});

describe('log groups expire', () => {
  const variants: [string, Partial<ServiceOptions>, Json][] = [
    ['default', {}, {}],
    ['opensearch, Bedrock, relay, sandbox', { searchEngine: 'opensearch', bedrockModelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', languageModelId: 'global.anthropic.claude-haiku-4-5-20251001-v1:0', smtpRelay: 'smtp.example.com:587' }, { sesSandbox: 'true' }],
  ];

  test.each(variants)('%s: every AWS::Logs::LogGroup of every stack has a retention', (_name, opts, context) => {
    const groups = templates(build(opts, context).app).flatMap(({ stack, resources }) => ofType(resources, 'AWS::Logs::LogGroup').map(([id, g]) => [`${stack.node.path}/${id}`, g.Properties.RetentionInDays] as const));
    expect(groups.length).toBeGreaterThan(0);
    expect(groups.filter(([, days]) => typeof days !== 'number')).toEqual([]);
  });

  test.each(variants)('%s: every Lambda function logs to a group of its stack with a retention (CDK\'s helper functions too)', (_name, opts, context) => {
    const all = templates(build(opts, context).app);
    const functions = all.flatMap(({ stack, resources }) => ofType(resources, 'AWS::Lambda::Function').map(([id, f]) => ({ stack, id, f, resources })));
    expect(functions.length).toBeGreaterThan(QUEUE_LIST.length);
    const homeless = functions.filter(({ id, f, resources }) => {
      const named = f.Properties.LoggingConfig?.LogGroup;
      const group = named?.Ref ? resources[named.Ref] : undefined;
      if (group) return !(group.Type === 'AWS::Logs::LogGroup' && typeof group.Properties.RetentionInDays === 'number');
      // Or a group of the function's default name, `/aws/lambda/<name>`, made by the stack.
      const explicit = ofType(resources, 'AWS::Logs::LogGroup').find(([, g]) => JSON.stringify(g.Properties.LogGroupName ?? '').includes(`/aws/lambda/`) && JSON.stringify(g.Properties.LogGroupName).includes(`"Ref":"${id}"`));
      return !explicit || typeof explicit[1].Properties.RetentionInDays !== 'number';
    });
    expect(homeless.map(({ stack, id }) => `${stack.node.path}/${id}`)).toEqual([]);
    // The helpers CDK adds by itself are among them: the bucket-notifications handler and the BucketDeployment provider.
    for (const helper of ['BucketNotificationsHandler', 'CustomCDKBucketDeployment']) expect(functions.some(({ id }) => id.startsWith(helper))).toBe(true);
  });

  test('API Gateway\'s execution log groups (API-Gateway-Execution-Logs_{rest-api-id}/{stage}) are the stack\'s, made before each stage', () => {
    const { app, api } = build();
    const { resources } = templates(app).find((t) => t.stack === api)!;
    for (const restApi of [api.api, api.appApi]) {
      const apiId = api.getLogicalId(restApi.node.defaultChild as never);
      const found = ofType(resources, 'AWS::Logs::LogGroup').filter(([, g]) => JSON.stringify(g.Properties.LogGroupName) === JSON.stringify({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, `/${STAGE}`]] }));
      expect(found).toHaveLength(1);
      const [groupId, group] = found[0]!;
      expect(group).toMatchObject({ DeletionPolicy: 'Delete', Properties: { RetentionInDays: 30 } });
      const stageId = api.getLogicalId(restApi.deploymentStage.node.defaultChild as never);
      expect(asArray(resources[stageId]!.DependsOn ?? [])).toContain(groupId);
    }
  });
});
