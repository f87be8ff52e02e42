import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SESv2Client } from '@aws-sdk/client-sesv2';

/**
 * One client per AWS service per process. Each SDK client reads `AWS_ENDPOINT_URL_<SERVICE>`, so the same
 * code talks to AWS or to the local stand-ins. Created on first use rather than at import so that tests can
 * set the endpoints before the first call; after that the instance is reused for the life of the process.
 */
let ddb: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;
let ses: SESv2Client | undefined;

export function documentClient(): DynamoDBDocumentClient {
  ddb ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return ddb;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}

export function schedulerClient(): SchedulerClient {
  scheduler ??= new SchedulerClient({});
  return scheduler;
}

export function sesClient(): SESv2Client {
  ses ??= new SESv2Client({});
  return ses;
}

/** Drop cached clients (local stack restarts in one process, tests). */
export function resetClients(): void {
  ddb?.destroy();
  sqs?.destroy();
  scheduler?.destroy();
  ses?.destroy();
  ddb = sqs = scheduler = ses = undefined;
}
