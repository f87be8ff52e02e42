/**
 * AWS's published prices the cost bench (bin/bench-cost.ts) turns consumption into dollars with: us-east-1,
 * on-demand, the first volume tier, free tiers left out (a cost per operation should not depend on how much
 * of a month's free allowance is left). Each line names the page it was read from on `PRICED_AT`; re-read
 * them before quoting a figure long after that date.
 */
export const PRICED_AT = '2026-11-27';
export const PRICE_REGION = 'us-east-1';

export interface PriceLine {
  /** Dollars per `unit`. */
  usd: number;
  unit: string;
  source: string;
  note?: string;
}

export const AWS_PRICES = {
  dynamodbWriteRequestUnit: {
    usd: 0.625 / 1e6,
    unit: 'write request unit (on-demand)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    note: '$0.625 per million; a transactional write is 2 units per KB, each GSI written adds its own units',
  },
  dynamodbReadRequestUnit: {
    usd: 0.125 / 1e6,
    unit: 'read request unit (on-demand)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    note: '$0.125 per million; strongly consistent 4 KB = 1 unit, eventually consistent 0.5, transactional 2',
  },
  lambdaGbSecondArm: {
    usd: 0.0000133334,
    unit: 'GB-second (arm64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
    note: 'every function is arm64 (lib/constructs/service-function.ts Architecture.ARM_64); first 7.5 billion GB-s a month',
  },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'invocation', source: 'https://aws.amazon.com/lambda/pricing/', note: '$0.20 per million' },
  apiGatewayRestRequest: {
    usd: 3.5 / 1e6,
    unit: 'REST API call',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
    note: '$3.50 per million for the first 333 million a month',
  },
  wafRequest: {
    usd: 0.6 / 1e6,
    unit: 'request inspected by AWS WAF',
    source: 'https://aws.amazon.com/waf/pricing/',
    note: '$0.60 per million; the REST API stage has a web ACL (lib/constructs/source-rate-limits.ts), plus $5 a month for it and $1 per rule',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'SQS request (standard queue)',
    source: 'https://aws.amazon.com/sqs/pricing/',
    note: '$0.40 per million; each 64 KB chunk of a payload is one request',
  },
  schedulerInvocation: {
    usd: 1.0 / 1e6,
    unit: 'EventBridge Scheduler invocation',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
    note: '$1.00 per million after the first 14 million a month; creating and deleting schedules is not charged',
  },
  sesEmail: {
    usd: 0.1 / 1000,
    unit: 'outbound email (per recipient)',
    source: 'https://aws.amazon.com/ses/pricing/',
    note: '$0.10 per 1,000; attachments add $0.12 per GB (the service sends none)',
  },
  bedrockHaiku45InputToken: {
    usd: 0.0011 / 1000,
    unit: 'input token, Claude Haiku 4.5 (us. profile)',
    source: 'https://aws.amazon.com/bedrock/pricing/',
    note: '$1.00 per million on the global profile; geographic (us.) and in-Region endpoints are listed 10% higher',
  },
  bedrockHaiku45OutputToken: {
    usd: 0.0055 / 1000,
    unit: 'output token, Claude Haiku 4.5 (us. profile)',
    source: 'https://aws.amazon.com/bedrock/pricing/',
    note: '$5.00 per million on the global profile, +10% on the us. profile',
  },
  openSearchServerlessOcuHour: {
    usd: 0.24,
    unit: 'OCU-hour (OpenSearch Serverless)',
    source: 'https://aws.amazon.com/opensearch-service/pricing/',
    note: 'the collection has standby replicas (lib/constructs/search-collection.ts): at least 1 indexing + 1 search OCU around the clock (https://aws.amazon.com/blogs/big-data/amazon-opensearch-serverless-cost-effective-search-capabilities-at-any-scale/)',
  },
  cloudWatchLogsIngestedGb: {
    usd: 0.5,
    unit: 'GB of logs ingested (CloudWatch Logs Standard)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
    note: 'Lambda logs: the first 10 TB a month of their tiers (May 2025); API Gateway access logs: the standard rate',
  },
  xrayTrace: {
    usd: 5.0 / 1e6,
    unit: 'X-Ray trace recorded',
    source: 'https://aws.amazon.com/xray/pricing/',
    note: '$5.00 per million; every function has active tracing, the default rule records 1 a second and 5% beyond',
  },
  s3GetRequest: { usd: 0.0004 / 1000, unit: 'S3 GET', source: 'https://aws.amazon.com/s3/pricing/', note: '$0.0004 per 1,000 (S3 Standard)' },
  s3PutRequest: { usd: 0.005 / 1000, unit: 'S3 PUT/LIST', source: 'https://aws.amazon.com/s3/pricing/', note: '$0.005 per 1,000 (S3 Standard)' },
  secretsManagerCall: { usd: 0.05 / 10_000, unit: 'Secrets Manager API call', source: 'https://aws.amazon.com/secrets-manager/pricing/', note: '$0.05 per 10,000' },
} as const satisfies Record<string, PriceLine>;

export type AwsPrices = { [K in keyof typeof AWS_PRICES]: PriceLine };

/** Hours in a month as AWS's pricing pages count them. */
export const HOURS_PER_MONTH = 730;
