import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/local.js';
import { isAlive, until } from '../support/probes.js';

/** A process that starts DynamoDB Local on `dir` and then waits to be killed. */
function owner(dir: string) {
  const script = `import { startDynamoLocal } from './shared/local/processes.ts'; await startDynamoLocal({ root: process.cwd(), dbPath: ${JSON.stringify(dir)} }); console.log('up'); setInterval(() => {}, 1000);`;
  // Node itself with tsx's loader (not the tsx launcher, which would be a second process): the pid killed
  // is the one that owns the JVM.
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const up = new Promise<void>((res, rej) => {
    child.stdout!.on('data', (d) => String(d).includes('up') && res());
    child.once('exit', (code) => rej(new Error(`owner exited with ${code}`)));
  });
  return { child, up };
}

test('a SIGKILLed owner does not leave DynamoDB Local running on its data directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ddb-owner-'));
  let first: ReturnType<typeof owner> | undefined;
  try {
    first = owner(dir);
    await first.up;
    const pidFile = join(dir, 'dynamodb-local.pid');
    expect(existsSync(pidFile)).toBe(true);
    const jvm = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(jvm)).toBe(true);
    first.child.kill('SIGKILL');
    // The watchdog outside the killed process ends the JVM within a couple of seconds.
    expect(await until(() => !isAlive(jvm), 10_000)).toBe(true);
  } finally {
    first?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ports for child processes come from below the ephemeral range, and DynamoDB Local takes another when its port is taken', async () => {
  const { freePort, startDynamoLocal } = await import('../../shared/local/processes.js');
  const [lo] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const p of ports) expect(p).toBeLessThan(lo);

  // The first port offered is already bound (as by another process between the choice and the JVM's bind).
  const { createServer } = await import('node:net');
  const taken = createServer((c) => c.destroy());
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  const takenPort = (taken.address() as { port: number }).port;
  let offered = 0;
  const ddb = await startDynamoLocal({ root: ROOT, dbPath: null, choosePort: async () => (offered++ === 0 ? takenPort : freePort()) });
  try {
    expect(offered).toBe(1);
    expect(ddb.port).not.toBe(takenPort);
    const res = await fetch(ddb.endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables', 'content-type': 'application/x-amz-json-1.0', authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x' }, body: '{}' });
    expect(res.status).toBe(200);
  } finally {
    await ddb.stop();
    taken.close();
  }
}, 60_000);

test("a data directory's DynamoDB Local serves its database only under the directory's key: another credential reads and writes nothing of it", async () => {
  const { dynamoAccessKey, startDynamoLocal } = await import('../../shared/local/processes.js');
  const { CreateTableCommand, DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand } = await import('@aws-sdk/client-dynamodb');
  const dir = mkdtempSync(join(tmpdir(), 'ddb-key-'));
  // A database from before the key (made under -sharedDb) is adopted by the directory's new key.
  const { writeFileSync, statSync } = await import('node:fs');
  writeFileSync(join(dir, 'shared-local-instance.db'), '');
  const key = dynamoAccessKey(dir);
  expect(key).toMatch(/^[0-9a-f]{32}$/);
  expect(existsSync(join(dir, 'shared-local-instance.db'))).toBe(false);
  expect(existsSync(join(dir, `${key}_us-east-1.db`))).toBe(true);
  expect(statSync(join(dir, 'access-key-id')).mode & 0o777).toBe(0o600);
  expect(dynamoAccessKey(dir)).toBe(key);
  rmSync(join(dir, `${key}_us-east-1.db`));

  const ddb = await startDynamoLocal({ root: ROOT, dbPath: dir });
  const client = (accessKeyId: string) => new DynamoDBClient({ endpoint: ddb.endpoint, region: 'us-east-1', credentials: { accessKeyId, secretAccessKey: 'x' } });
  const owner = client(ddb.accessKeyId);
  const stranger = client('local');
  try {
    expect(ddb.accessKeyId).toBe(key);
    await owner.send(new CreateTableCommand({ TableName: 'local-accounts', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }));
    await owner.send(new PutItemCommand({ TableName: 'local-accounts', Item: { pk: { S: 'APIKEY#h' }, balance: { N: '10' } } }));
    expect((await stranger.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    await expect(stranger.send(new GetItemCommand({ TableName: 'local-accounts', Key: { pk: { S: 'APIKEY#h' } } }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(stranger.send(new PutItemCommand({ TableName: 'local-accounts', Item: { pk: { S: 'APIKEY#minted' } } }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect((await owner.send(new GetItemCommand({ TableName: 'local-accounts', Key: { pk: { S: 'APIKEY#minted' } } }))).Item).toBeUndefined();
    expect((await owner.send(new GetItemCommand({ TableName: 'local-accounts', Key: { pk: { S: 'APIKEY#h' } } }))).Item?.balance).toEqual({ N: '10' });
  } finally {
    owner.destroy();
    stranger.destroy();
    await ddb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
