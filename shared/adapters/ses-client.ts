import { SESv2Client } from '@aws-sdk/client-sesv2';
import { lazyClient } from './aws-client.js';

export const sesClient = lazyClient(() => new SESv2Client({}));
