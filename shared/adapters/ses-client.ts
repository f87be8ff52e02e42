import { SESv2Client } from '@aws-sdk/client-sesv2';
import { lazyClient } from './aws-client.js';

export const sesClient = /* @__PURE__ */ lazyClient(() => new SESv2Client({}));
