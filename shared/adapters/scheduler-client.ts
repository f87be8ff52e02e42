import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { lazyClient } from './aws-client.js';

export const schedulerClient = /* @__PURE__ */ lazyClient(() => new SchedulerClient({}));
