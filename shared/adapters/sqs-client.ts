import { SQSClient } from '@aws-sdk/client-sqs';
import { lazyClient } from './aws-client.js';

export const sqsClient = /* @__PURE__ */ lazyClient(() => new SQSClient({}));
