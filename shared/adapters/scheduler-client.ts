import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { lazyClient } from './aws-client.js';

export const schedulerClient = lazyClient(() => new SchedulerClient({}));
