import { ServiceException } from '@smithy/core/client';
import { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS, type Bindings } from '../catalog/bindings.js';
import { TABLES, type TableKey } from '../catalog/tables.js';
import { QUEUES, type QueueKey } from '../catalog/queues.js';
import { KEY_THROTTLE_PREFIX, KEY_USE_ATTRIBUTE, KEY_USE_PARTITIONS } from '../accounts/accounts.keys.js';
import { INBOUND_MAIL } from '../catalog/functions.js';

/**
 * The twin's IAM: whether a function's grants allow one AWS SDK call, decided as the policies the CDK
 * construct writes for the same bindings would (lib/constructs/service-function.ts `bind…`). A call is one
 * or more (action, resource) requests; DynamoDB authorises each item of a batch or transaction by its own
 * action. Anything not granted is refused, as IAM refuses what no policy allows.
 */
export interface SdkCall {
  /** The SDK client's name: `DynamoDBClient`, `SQSClient`, `SchedulerClient`… */
  client: string;
  /** The command's name without `Command`: `PutItem`, `SendMessage`… */
  command: string;
  input: Record<string, unknown>;
}

/** Where the function's bound resources are, as its environment names them. */
export interface BoundResources {
  tableName(key: TableKey): string | undefined;
  queueUrl(key: QueueKey): string | undefined;
  schedulerGroup(): string | undefined;
  /** Secret ids (ARNs) the function may read. */
  secretIds(): string[];
  /** The model or inference profile the function may invoke. */
  languageModelId(): string | undefined;
}

export interface Denial {
  action: string;
  resource: string;
}

export interface Grants {
  bindings: Bindings;
  /** Narrows table grants to these DynamoDB actions (the API-key authorizer's GetItem). */
  tableActions?: readonly string[];
}

const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

const tableArn = (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
const queueArn = (url: string) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${url.split('/').pop()}`;

/** The first request of the call that no grant allows, or null when every one is allowed. */
export function deniedRequest(grants: Grants, call: SdkCall, bound: BoundResources): Denial | null {
  const check = CHECKS[call.client];
  if (!check) return { action: `${call.client.replace(/Client$/, '').toLowerCase()}:${call.command}`, resource: '*' };
  return check(grants, call, bound);
}

type Check = (grants: Grants, call: SdkCall, bound: BoundResources) => Denial | null;

interface TableRequest {
  action: string;
  table: string;
  item?: Record<string, unknown>;
}

function tableRequests(call: SdkCall): TableRequest[] {
  const input = call.input;
  switch (call.command) {
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys((input.RequestItems as Record<string, unknown>) ?? {}).map((table) => ({ action: `dynamodb:${call.command}`, table }));
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return ((input.TransactItems as Record<string, Record<string, unknown>>[]) ?? []).map((entry) => {
        const [kind, item] = Object.entries(entry)[0]!;
        const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' }[kind] ?? kind;
        return { action: `dynamodb:${action}`, table: String((item as Record<string, unknown>).TableName), item: item as Record<string, unknown> };
      });
    default:
      return [{ action: `dynamodb:${call.command}`, table: String(input.TableName), item: input }];
  }
}

const partitionOf = (item: Record<string, unknown> | undefined): string | undefined => {
  const pk = (item?.Key as Record<string, unknown> | undefined)?.pk;
  if (typeof pk === 'string') return pk;
  return (pk as { S?: string } | undefined)?.S;
};

const likePattern = (pattern: string, value: string) => (pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : value === pattern);

/** `keyThrottle`: UpdateItem of per-key token buckets only (dynamodb:LeadingKeys `RATE#*`). */
function keyThrottleAllows(request: TableRequest): boolean {
  const pk = partitionOf(request.item);
  return request.action === 'dynamodb:UpdateItem' && pk !== undefined && pk.startsWith(KEY_THROTTLE_PREFIX);
}

/** `keyUse`: UpdateItem of `last_used_at` alone, on key and account items, returning nothing. */
function keyUseAllows(request: TableRequest): boolean {
  const pk = partitionOf(request.item);
  if (request.action !== 'dynamodb:UpdateItem' || pk === undefined || !KEY_USE_PARTITIONS.some((p) => likePattern(p, pk))) return false;
  const names = attributesOf(request.item ?? {});
  const returns = request.item?.ReturnValues;
  return names.size > 0 && [...names].every((n) => n === KEY_USE_ATTRIBUTE || n === 'pk' || n === 'sk') && (returns === undefined || returns === 'NONE');
}

const EXPRESSION_WORDS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN', 'attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains', 'size', 'if_not_exists', 'list_append']);

/** IAM's `dynamodb:Attributes`: the key attributes and every top-level attribute the expressions name. */
function attributesOf(item: Record<string, unknown>): Set<string> {
  const names = (item.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  const out = new Set(Object.keys((item.Key as Record<string, unknown> | undefined) ?? {}));
  for (const field of ['UpdateExpression', 'ConditionExpression', 'ProjectionExpression']) {
    const expression = item[field];
    if (typeof expression !== 'string') continue;
    for (const [token] of expression.matchAll(/[#:]?[A-Za-z_][A-Za-z0-9_]*/g)) {
      if (token.startsWith(':') || EXPRESSION_WORDS.has(token)) continue;
      out.add(token.startsWith('#') ? (names[token] ?? token) : token);
    }
  }
  return out;
}

const dynamodb: Check = (grants, call, bound) => {
  const { bindings } = grants;
  for (const request of tableRequests(call)) {
    const key = (Object.keys(bindings.tables ?? {}) as TableKey[]).find((k) => bound.tableName(k) === request.table);
    const mode = key ? bindings.tables![key] : undefined;
    const actions: readonly string[] = mode === 'readwrite' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : mode === 'read' ? TABLE_READ_ACTIONS : [];
    const narrowed = grants.tableActions ? actions.filter((a) => grants.tableActions!.includes(a)) : actions;
    if (narrowed.includes(request.action)) continue;
    const accounts = bound.tableName('accounts') === request.table;
    if (accounts && bindings.keyThrottle && keyThrottleAllows(request)) continue;
    if (accounts && bindings.keyUse && keyUseAllows(request)) continue;
    return { action: request.action, resource: tableArn(request.table) };
  }
  return null;
};

const SQS_ACTIONS: Record<string, string> = { SendMessage: 'sqs:SendMessage', SendMessageBatch: 'sqs:SendMessage', GetQueueAttributes: 'sqs:GetQueueAttributes', GetQueueUrl: 'sqs:GetQueueUrl' };

const sqs: Check = ({ bindings }, call, bound) => {
  const url = typeof call.input.QueueUrl === 'string' ? call.input.QueueUrl : `/${String(call.input.QueueName)}`;
  const action = SQS_ACTIONS[call.command] ?? `sqs:${call.command}`;
  const granted = (Object.keys(bindings.queues ?? {}) as QueueKey[]).some((k) => {
    const bound_ = bound.queueUrl(k);
    return bound_ !== undefined && (bound_ === url || queueArn(bound_) === queueArn(url));
  });
  return granted && SQS_ACTIONS[call.command] ? null : { action, resource: queueArn(url) };
};

const scheduler: Check = ({ bindings }, call, bound) => {
  const group = typeof call.input.GroupName === 'string' ? call.input.GroupName : 'default';
  const action = `scheduler:${call.command}`;
  const resource = `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${group}/${String(call.input.Name)}`;
  return bindings.scheduler && group === bound.schedulerGroup() && (SCHEDULER_COMMANDS as readonly string[]).includes(call.command) ? null : { action, resource };
};
const SCHEDULER_COMMANDS = ['CreateSchedule', 'UpdateSchedule', 'DeleteSchedule', 'GetSchedule'] as const;

/** A binding that grants a whole service's few actions: allowed when bound and the command is one of them. */
const serviceGrant =
  (prefix: string, granted: (b: Bindings) => boolean, commands: Record<string, string>, resource: (input: Record<string, unknown>) => string): Check =>
  ({ bindings }, call) => {
    const action = commands[call.command] ?? `${prefix}:${call.command}`;
    return granted(bindings) && commands[call.command] ? null : { action, resource: resource(call.input) };
  };

const secretsManager: Check = (_grants, call, bound) => {
  const id = String(call.input.SecretId);
  return call.command === 'GetSecretValue' && bound.secretIds().includes(id) ? null : { action: `secretsmanager:${call.command}`, resource: id };
};

/** Converse is authorised by `bedrock:InvokeModel`, on the one model (or inference profile) the binding names. */
const bedrockRuntime: Check = ({ bindings }, call, bound) => {
  const modelId = String(call.input.modelId);
  const resource = modelId.startsWith('arn:') ? modelId : `arn:aws:bedrock:${REGION}:${ACCOUNT}:inference-profile/${modelId}`;
  const action = call.command === 'Converse' ? 'bedrock:InvokeModel' : `bedrock:${call.command}`;
  return bindings.languageModel && call.command === 'Converse' && modelId === bound.languageModelId() ? null : { action, resource };
};

/** The action IAM authorises each S3 call by (HeadObject is a read of the object: `s3:GetObject`). */
const S3_ACTIONS: Record<string, string> = { GetObject: 's3:GetObject', HeadObject: 's3:GetObject', ListObjectsV2: 's3:ListBucket', PutObject: 's3:PutObject', DeleteObject: 's3:DeleteObject' };

/**
 * The inbound-mail bucket on the twin (CloudFormation names it in AWS; the function learns it from its S3
 * event) and the prefix SES receiving writes each message under (lib/constructs/inbound-mail.ts `INBOUND_PREFIX`).
 */
export const INBOUND_MAIL_BUCKET = 'local-inbound-mail';
export const INBOUND_MAIL_PREFIX = 'inbound/';

/**
 * S3 statements a construct writes itself, beside the function's bindings: the inbound-mail function may
 * `s3:GetObject` under `inbound/` of the inbound bucket and nothing else there (lib/constructs/inbound-mail.ts).
 * They go with the catalogue's bindings object, as the API-key authorizer's GetItem narrowing does
 * (function-context.ts): a test that replaces the function's bindings (`startLocalStack({ grants })`) takes
 * them away with it.
 */
const OBJECT_GRANTS = new Map<Bindings, { bucket: string; prefix: string; actions: readonly string[] }[]>([
  [INBOUND_MAIL.bindings, [{ bucket: INBOUND_MAIL_BUCKET, prefix: INBOUND_MAIL_PREFIX, actions: ['s3:GetObject'] }]],
]);

const s3: Check = ({ bindings }, call) => {
  const action = S3_ACTIONS[call.command] ?? `s3:${call.command}`;
  const bucket = String(call.input.Bucket);
  const key = String(call.input.Key ?? '');
  // The directory bindings' grant as before (HeadObject now read as s3:GetObject): their actions on any bucket.
  if ((bindings.directorySource || bindings.directoryImport) && S3_ACTIONS[call.command]) return null;
  const granted = (OBJECT_GRANTS.get(bindings) ?? []).some((g) => g.bucket === bucket && key.startsWith(g.prefix) && g.actions.includes(action));
  return granted ? null : { action, resource: `arn:aws:s3:::${bucket}/${key}` };
};

const CHECKS: Record<string, Check> = {
  DynamoDBClient: dynamodb,
  SQSClient: sqs,
  SchedulerClient: scheduler,
  SESv2Client: serviceGrant('ses', (b) => !!b.mail, { SendEmail: 'ses:SendEmail' }, () => `arn:aws:ses:${REGION}:${ACCOUNT}:identity/*`),
  SESClient: serviceGrant('ses', (b) => !!b.mail, { SendEmail: 'ses:SendEmail', SendRawEmail: 'ses:SendRawEmail' }, () => `arn:aws:ses:${REGION}:${ACCOUNT}:identity/*`),
  CognitoIdentityProviderClient: serviceGrant(
    'cognito-idp',
    (b) => !!b.userPool,
    { AdminCreateUser: 'cognito-idp:AdminCreateUser', AdminSetUserPassword: 'cognito-idp:AdminSetUserPassword' },
    (input) => `arn:aws:cognito-idp:${REGION}:${ACCOUNT}:userpool/${String(input.UserPoolId)}`,
  ),
  APIGatewayClient: serviceGrant(
    'apigateway',
    (b) => !!b.apiKeys,
    // GetApiKeys: a rolled-back create finds the gateway key it may have left by its name (GET /apikeys, as in AWS).
    { GetUsagePlans: 'apigateway:GET', GetApiKeys: 'apigateway:GET', CreateApiKey: 'apigateway:POST', CreateUsagePlanKey: 'apigateway:POST', DeleteApiKey: 'apigateway:DELETE' },
    () => `arn:aws:apigateway:${REGION}::/apikeys`,
  ),
  SecretsManagerClient: secretsManager,
  BedrockRuntimeClient: bedrockRuntime,
  S3Client: s3,
};

/** The error IAM's refusal arrives as, in the words AWS uses. */
export function accessDenied(functionName: string, denial: Denial): ServiceException {
  const role = `local-${functionName.replace(/[^A-Za-z0-9+=,.@_-]+/g, '-').replace(/^-|-$/g, '')}`.slice(0, 64);
  return new ServiceException({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: `User: arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${role} is not authorized to perform: ${denial.action} on resource: ${denial.resource} because no identity-based policy allows the ${denial.action} action`,
  });
}

/** The names a function's environment gives its bound resources, read from the process's full environment. */
export function boundResources(env: NodeJS.ProcessEnv, bindings: Bindings): BoundResources {
  return {
    tableName: (k) => (bindings.tables?.[k] ? env[TABLES[k].env] : undefined),
    queueUrl: (k) => (bindings.queues?.[k] ? env[QUEUES[k].urlEnv] : undefined),
    schedulerGroup: () => (bindings.scheduler ? env.SCHEDULER_GROUP_NAME : undefined),
    languageModelId: () => (bindings.languageModel ? env.LANGUAGE_MODEL_ID : undefined),
    secretIds: () => [bindings.secrets ? env.SECRET_BOX_SECRET_ARN : undefined, bindings.mailboxProviders ? env.MAILBOX_PROVIDERS_SECRET_ARN : undefined].filter((s): s is string => !!s),
  };
}
