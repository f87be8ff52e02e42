import { Tracer } from '@aws-lambda-powertools/tracer';
import { isLocalMode } from '../core/env.js';

/**
 * One client per AWS service per process, each in its own module so that a function loads only the SDK
 * packages it calls (a DynamoDB-only handler never pays for SQS, Scheduler or SES at cold start).
 * Created on first use rather than at import so that tests can set the endpoints first; every SDK client
 * reads `AWS_ENDPOINT_URL_<SERVICE>`, so the same code reaches AWS or the local stand-ins. In AWS each
 * client is captured for X-Ray; locally there is no daemon to send segments to.
 */
const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'people-outreach' });
const destroyers = new Set<() => void>();

export function lazyClient<C extends { destroy(): void }>(create: () => C): () => C {
  let client: C | undefined;
  const destroy = () => {
    client?.destroy();
    client = undefined;
  };
  destroyers.add(destroy);
  return () => {
    client ??= isLocalMode() ? create() : tracer.captureAWSv3Client(create());
    return client;
  };
}

/** Drop every cached client (local stack restarts in one process, tests). */
export function resetClients(): void {
  for (const destroy of destroyers) destroy();
}
