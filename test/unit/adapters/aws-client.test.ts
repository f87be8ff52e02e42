import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import AWSXRay from 'aws-xray-sdk-core';
import { lazyClient } from '../../../shared/adapters/aws-client.js';
import { useProcessEnv } from '../../support/process-env.js';

// What Lambda sets, so that Powertools' Tracer is enabled as it is in AWS; outgoing HTTP is left unpatched in
// this process (the SDK capture is what is under test).
const ENV = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  POWERTOOLS_TRACER_CAPTURE_HTTPS_REQUESTS: 'false',
  SERVICE_MODE: 'aws',
};
useProcessEnv(ENV);

/** A DynamoDB client whose requests are answered before they leave the process. */
function answeredLocally(): () => DynamoDBClient {
  return lazyClient(() => {
    const client = new DynamoDBClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    client.middlewareStack.add(() => async () => ({ output: { $metadata: { httpStatusCode: 200 }, TableNames: [] }, response: { statusCode: 200, headers: {} } }), {
      step: 'finalizeRequest',
      priority: 'high',
      name: 'answerLocally',
    });
    return client;
  });
}

/** The names of the subsegments the X-Ray SDK records while `run` executes inside a segment. */
async function subsegmentsOf(run: () => Promise<unknown>): Promise<string[]> {
  const segment = new AWSXRay.Segment('unit');
  await AWSXRay.getNamespace().runPromise(async () => {
    AWSXRay.setSegment(segment);
    await run();
  });
  return (segment.subsegments ?? []).map((s) => s.name);
}

test('outside local mode the first request of a client is already traced, and so is every later one', async () => {
  const client = answeredLocally();
  expect(await subsegmentsOf(() => client().send(new ListTablesCommand({})))).toEqual(['DynamoDB']);
  expect(client().middlewareStack.identify()).toContain('XRaySDKInstrumentation - build');
  expect(await subsegmentsOf(() => client().send(new ListTablesCommand({})))).toEqual(['DynamoDB']);
});

test('requests sent together before the tracer has loaded are all traced, through one capture', async () => {
  const client = answeredLocally();
  const names = await subsegmentsOf(() => Promise.all([1, 2, 3].map(() => client().send(new ListTablesCommand({})))));
  expect(names).toEqual(['DynamoDB', 'DynamoDB', 'DynamoDB']);
  expect(client().middlewareStack.identify().filter((m) => m.startsWith('XRaySDKInstrumentation'))).toHaveLength(1);
});

test('in local mode no X-Ray middleware is added', async () => {
  process.env.SERVICE_MODE = 'local';
  try {
    const client = answeredLocally();
    expect(await subsegmentsOf(() => client().send(new ListTablesCommand({})))).toEqual([]);
    expect(client().middlewareStack.identify().some((m) => m.startsWith('XRaySDKInstrumentation'))).toBe(false);
  } finally {
    process.env.SERVICE_MODE = ENV.SERVICE_MODE;
  }
});
