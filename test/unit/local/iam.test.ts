import { accessDenied, boundResources, deniedRequest, type SdkCall } from '../../../shared/local/iam.js';
import type { Bindings } from '../../../shared/catalog/bindings.js';

const env = {
  ACCOUNTS_TABLE_NAME: 'local-accounts',
  OUTREACH_TABLE_NAME: 'local-outreach',
  JOBS_TABLE_NAME: 'local-jobs',
  SENDING_QUEUE_URL: 'http://127.0.0.1:1/000000000000/local-sending',
  SEARCH_QUEUE_URL: 'http://127.0.0.1:1/000000000000/local-search',
  SCHEDULER_GROUP_NAME: 'local-timers',
  SECRET_BOX_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:box',
  LANGUAGE_MODEL_ID: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
};
const decide = (bindings: Bindings, call: SdkCall, tableActions?: string[]) => deniedRequest({ bindings, tableActions }, call, boundResources(env, bindings));
const ddb = (command: string, input: Record<string, unknown>): SdkCall => ({ client: 'DynamoDBClient', command, input });

describe('DynamoDB', () => {
  const readOutreach: Bindings = { tables: { outreach: 'read' } };
  test('read grants reads, not writes, and only on the bound table', () => {
    expect(decide(readOutreach, ddb('Query', { TableName: 'local-outreach' }))).toBeNull();
    expect(decide(readOutreach, ddb('PutItem', { TableName: 'local-outreach' }))).toEqual({ action: 'dynamodb:PutItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/local-outreach' });
    expect(decide(readOutreach, ddb('GetItem', { TableName: 'local-jobs' }))).toEqual({ action: 'dynamodb:GetItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/local-jobs' });
  });
  test('each item of a transaction or batch is authorised by its own action and table', () => {
    const b: Bindings = { tables: { outreach: 'readwrite', accounts: 'read' } };
    const tx = (second: Record<string, unknown>) => ddb('TransactWriteItems', { TransactItems: [{ Put: { TableName: 'local-outreach', Item: {} } }, second] });
    expect(decide(b, tx({ ConditionCheck: { TableName: 'local-accounts', Key: { pk: 'A', sk: 'A' } } }))).toBeNull();
    expect(decide(b, tx({ Update: { TableName: 'local-accounts', Key: { pk: 'A', sk: 'A' } } }))).toMatchObject({ action: 'dynamodb:UpdateItem' });
    expect(decide(b, ddb('BatchWriteItem', { RequestItems: { 'local-outreach': [], 'local-accounts': [] } }))).toMatchObject({ action: 'dynamodb:BatchWriteItem', resource: expect.stringContaining('local-accounts') });
  });
  test('keyUse writes last_used_at alone on key and account items; keyThrottle only RATE# buckets', () => {
    const b: Bindings = { tables: { accounts: 'read' }, keyUse: true, keyThrottle: true };
    const update = (pk: string, expression: string, extra: Record<string, unknown> = {}) => ddb('UpdateItem', { TableName: 'local-accounts', Key: { pk, sk: pk }, UpdateExpression: expression, ...extra });
    expect(decide(b, update('APIKEY#h', 'SET last_used_at = :at', { ConditionExpression: 'attribute_exists(pk)' }))).toBeNull();
    expect(decide(b, update('APIKEY#h', 'SET last_used_at = :at, balance = :b'))).toMatchObject({ action: 'dynamodb:UpdateItem' });
    expect(decide(b, update('APIKEY#h', 'SET #a = :at', { ExpressionAttributeNames: { '#a': 'revoked_at' } }))).toMatchObject({ action: 'dynamodb:UpdateItem' });
    expect(decide(b, update('APIKEY#h', 'SET last_used_at = :at', { ReturnValues: 'ALL_NEW' }))).toMatchObject({ action: 'dynamodb:UpdateItem' });
    expect(decide(b, update('RATE#k', 'SET tokens = :t'))).toBeNull();
    expect(decide({ tables: { accounts: 'read' }, keyUse: true }, update('RATE#k', 'SET tokens = :t'))).toMatchObject({ action: 'dynamodb:UpdateItem' });
    expect(decide(b, update('CHARGE#x', 'SET last_used_at = :at'))).toMatchObject({ action: 'dynamodb:UpdateItem' });
  });
  test('the authorizer reads with GetItem only', () => {
    const b: Bindings = { tables: { accounts: 'read' } };
    expect(decide(b, ddb('GetItem', { TableName: 'local-accounts' }), ['dynamodb:GetItem'])).toBeNull();
    expect(decide(b, ddb('Query', { TableName: 'local-accounts' }), ['dynamodb:GetItem'])).toMatchObject({ action: 'dynamodb:Query' });
  });
});

test('SQS: send to a bound queue only; no other action', () => {
  const b: Bindings = { queues: { sending: 'send' } };
  const sqs = (command: string, QueueUrl: string): SdkCall => ({ client: 'SQSClient', command, input: { QueueUrl } });
  expect(decide(b, sqs('SendMessage', env.SENDING_QUEUE_URL))).toBeNull();
  expect(decide(b, sqs('SendMessage', env.SEARCH_QUEUE_URL))).toEqual({ action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:local-search' });
  expect(decide(b, sqs('PurgeQueue', env.SENDING_QUEUE_URL))).toMatchObject({ action: 'sqs:PurgeQueue' });
});

test('Scheduler: the service group only, for a function bound to it', () => {
  const call = (GroupName?: string): SdkCall => ({ client: 'SchedulerClient', command: 'DeleteSchedule', input: { Name: 's1', GroupName } });
  expect(decide({ scheduler: true }, call('local-timers'))).toBeNull();
  expect(decide({ scheduler: true }, call(undefined))).toEqual({ action: 'scheduler:DeleteSchedule', resource: 'arn:aws:scheduler:us-east-1:000000000000:schedule/default/s1' });
  expect(decide({}, call('local-timers'))).toMatchObject({ action: 'scheduler:DeleteSchedule' });
});

test('services without a binding, secrets by their id, and unknown clients are refused', () => {
  expect(decide({}, { client: 'SESv2Client', command: 'SendEmail', input: {} })).toMatchObject({ action: 'ses:SendEmail' });
  expect(decide({ mail: true }, { client: 'SESv2Client', command: 'SendEmail', input: {} })).toBeNull();
  const secret = { client: 'SecretsManagerClient', command: 'GetSecretValue', input: { SecretId: env.SECRET_BOX_SECRET_ARN } };
  expect(decide({ secrets: true }, secret)).toBeNull();
  expect(decide({ mailboxProviders: true }, secret)).toEqual({ action: 'secretsmanager:GetSecretValue', resource: env.SECRET_BOX_SECRET_ARN });
  expect(decide({ tables: { outreach: 'readwrite' } }, { client: 'KinesisClient', command: 'PutRecord', input: {} })).toEqual({ action: 'kinesis:PutRecord', resource: '*' });
});

test('the refusal reads as AWS words it, with the role named after the function', () => {
  const e = accessDenied('GET /api/public/v1/emails/', { action: 'dynamodb:PutItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/t' });
  expect(e.name).toBe('AccessDeniedException');
  expect(e.message).toBe(
    'User: arn:aws:sts::000000000000:assumed-role/local-GET-api-public-v1-emails/local-GET-api-public-v1-emails is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/t because no identity-based policy allows the dynamodb:PutItem action',
  );
});

test('Bedrock Runtime: Converse on the bound language model only, for a function bound to it', () => {
  const converse = (modelId: string, command = 'Converse'): SdkCall => ({ client: 'BedrockRuntimeClient', command, input: { modelId } });
  expect(decide({ languageModel: true }, converse(env.LANGUAGE_MODEL_ID))).toBeNull();
  expect(decide({}, converse(env.LANGUAGE_MODEL_ID))).toEqual({ action: 'bedrock:InvokeModel', resource: `arn:aws:bedrock:us-east-1:000000000000:inference-profile/${env.LANGUAGE_MODEL_ID}` });
  expect(decide({ languageModel: true }, converse('anthropic.claude-3-opus-20240229-v1:0'))).toMatchObject({ action: 'bedrock:InvokeModel' });
  expect(decide({ languageModel: true }, converse(env.LANGUAGE_MODEL_ID, 'ConverseStream'))).toMatchObject({ action: 'bedrock:ConverseStream' });
});
