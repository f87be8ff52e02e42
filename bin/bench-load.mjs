/**
 * A load generator for `npm run bench`, run in a worker thread so that the clients do not share the
 * event loop of the local stack they measure (as clients outside the service would not). `CONCURRENCY`
 * loops send one request after another for `ms`; the answer is how many completed. Plain JavaScript:
 * a worker thread does not inherit the TypeScript loader.
 *
 * workerData: {kind: 'http', url, headers, concurrency, ms} | {kind: 'get-item', table, key, concurrency, ms}
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const spec = workerData;

function httpGetter(url, headers, concurrency) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  return () =>
    new Promise((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url} answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
}

function itemGetter(table, key) {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  return async () => {
    const out = await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    if (!out.Item) throw new Error('item missing');
  };
}

const once = spec.kind === 'http' ? httpGetter(spec.url, spec.headers, spec.concurrency) : itemGetter(spec.table, spec.key);
const started = performance.now();
const end = started + spec.ms;
let done = 0;
await Promise.all(
  Array.from({ length: spec.concurrency }, async () => {
    while (performance.now() < end) {
      await once();
      done++;
    }
  }),
);
parentPort.postMessage({ done, seconds: (performance.now() - started) / 1000 });
