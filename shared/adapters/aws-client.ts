import { isLocalMode } from '../core/env.js';
import { once } from '../core/once.js';

/**
 * One client per AWS service per process, each in its own module so that a function loads only the SDK
 * packages it calls (a DynamoDB-only handler never pays for SQS, Scheduler or SES at cold start).
 * Created on first use rather than at import so that tests can set the endpoints first; every SDK client
 * reads `AWS_ENDPOINT_URL_<SERVICE>`, so the same code reaches AWS or the local stand-ins. In AWS each
 * client is captured for X-Ray; locally there is no daemon to send segments to.
 */
const destroyers = new Set<() => void>();

export interface AwsClient {
  destroy(): void;
  send(...args: never[]): Promise<unknown>;
}

export function lazyClient<C extends AwsClient>(create: () => C): () => C {
  let client: C | undefined;
  const destroy = () => {
    client?.destroy();
    client = undefined;
  };
  destroyers.add(destroy);
  return () => {
    client ??= isLocalMode() ? withLocalHooks(create()) : capturedOnFirstSend(create());
    return client;
  };
}

/**
 * What the twin adds to each client it makes (shared/local/function-context.ts: the check of every call against
 * the running function's grants), registered by the local stack; nothing registers one in AWS.
 */
const localHooks = new Set<(client: AwsClient) => void>();

export function onClientCreated(hook: (client: AwsClient) => void): void {
  localHooks.add(hook);
}

function withLocalHooks<C extends AwsClient>(client: C): C {
  for (const hook of localHooks) hook(client);
  return client;
}

// The X-Ray SDK (through Powertools' Tracer) is a third of a DynamoDB-only bundle and about 30 ms of module
// init (npm run bench): it is imported when the process first sends an AWS request instead of at cold start.
// Its capture of outgoing HTTP(S) and fetch starts then too; every function reads DynamoDB before any webhook
// or provider call.
const loadTracer = /* @__PURE__ */ once(() =>
  import('@aws-lambda-powertools/tracer').then(({ Tracer }) => new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'people-outreach' })),
);

/**
 * The client with X-Ray's middleware added before its first request leaves, so that request is traced like
 * every later one. A command's middleware is resolved when it is sent, hence the capture in `send` itself.
 */
function capturedOnFirstSend<C extends AwsClient>(client: C): C {
  const send = client.send.bind(client);
  let captured: Promise<void> | undefined;
  client.send = (async (...args: never[]) => {
    await (captured ??= loadTracer().then((t) => {
      t.captureAWSv3Client(client);
      client.send = send;
    }));
    return send(...args);
  }) as C['send'];
  return client;
}

/**
 * A process-wide cache other than an SDK client (SMTP transports, provider settings) that `resetClients` drops
 * too, registered by its own module when loaded: the local stack resets it without importing that module.
 */
export function dropOnReset(reset: () => void): void {
  destroyers.add(reset);
}

/** Drop every cached client (local stack restarts in one process, tests). */
export function resetClients(): void {
  for (const destroy of destroyers) destroy();
}
