import { SQSClient } from '@aws-sdk/client-sqs';
import { lazyClient } from './aws-client.js';

export const sqsClient = lazyClient(() => new SQSClient({}));
