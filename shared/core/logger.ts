import { Logger } from '@aws-lambda-powertools/logger';

/** One structured logger per process. Secrets are never passed to it: keys and secrets are hashed or sealed first. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'people-outreach' });
