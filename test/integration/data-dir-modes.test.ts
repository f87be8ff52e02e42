import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/local.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'data-dir-modes-'));
  chmodSync(base, 0o755);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

test('a new data directory is made 0700; an existing world-readable one is tightened, files 0600, directories 0700', async () => {
  const { privateDir } = await import('../../shared/local/private-dir.js');
  const fresh = join(base, 'fresh', '.data');
  privateDir(fresh);
  expect(modeOf(fresh)).toBe(0o700);

  // A `.data/` left world-readable by an older version.
  const old = join(base, '.data');
  mkdirSync(join(old, 'dynamodb'), { recursive: true, mode: 0o755 });
  chmodSync(old, 0o755);
  chmodSync(join(old, 'dynamodb'), 0o777);
  for (const [file, mode] of [['secret-box.key', 0o644], ['demo-account.json', 0o666], [join('dynamodb', 'access-key-id'), 0o644], [join('dynamodb', 'k_us-east-1.db'), 0o644]] as const) {
    writeFileSync(join(old, file), 'x');
    chmodSync(join(old, file), mode);
  }
  privateDir(old);
  expect(modeOf(old)).toBe(0o700);
  expect(modeOf(join(old, 'dynamodb'))).toBe(0o700);
  for (const file of ['secret-box.key', 'demo-account.json', join('dynamodb', 'access-key-id'), join('dynamodb', 'k_us-east-1.db')]) expect(modeOf(join(old, file))).toBe(0o600);

  // A DATA_DIR pointed at a directory that is not the twin's: only the directory itself.
  const other = join(base, 'home');
  mkdirSync(other, { mode: 0o755 });
  writeFileSync(join(other, 'notes.txt'), 'x', { mode: 0o644 });
  chmodSync(join(other, 'notes.txt'), 0o644);
  privateDir(other);
  expect(modeOf(other)).toBe(0o700);
  expect(modeOf(join(other, 'notes.txt'))).toBe(0o644);
});

test("DynamoDB Local's directory is 0700 and its database file 0600, and the database still works", async () => {
  const { startDynamoLocal } = await import('../../shared/local/processes.js');
  const { CreateTableCommand, DynamoDBClient, ListTablesCommand } = await import('@aws-sdk/client-dynamodb');
  const dbPath = join(base, 'dynamodb');
  const ddb = await startDynamoLocal({ root: ROOT, dbPath });
  const client = new DynamoDBClient({ endpoint: ddb.endpoint, region: 'us-east-1', credentials: { accessKeyId: ddb.accessKeyId, secretAccessKey: 'x' } });
  const dbFile = join(dbPath, `${ddb.accessKeyId}_us-east-1.db`);
  try {
    await client.send(new CreateTableCommand({ TableName: 'modes', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }));
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(['modes']);
    expect(modeOf(dbPath)).toBe(0o700);
    expect(modeOf(dbFile)).toBe(0o600);
    expect(modeOf(join(dbPath, 'access-key-id'))).toBe(0o600);
  } finally {
    client.destroy();
    await ddb.stop();
  }
  expect(statSync(dbFile).size).toBeGreaterThan(0);
  // An older database file made world-readable is tightened at the next start.
  chmodSync(dbFile, 0o644);
  chmodSync(dbPath, 0o755);
  const again = await startDynamoLocal({ root: ROOT, dbPath });
  const client2 = new DynamoDBClient({ endpoint: again.endpoint, region: 'us-east-1', credentials: { accessKeyId: again.accessKeyId, secretAccessKey: 'x' } });
  try {
    expect(modeOf(dbPath)).toBe(0o700);
    expect(modeOf(dbFile)).toBe(0o600);
    expect((await client2.send(new ListTablesCommand({}))).TableNames).toEqual(['modes']);
  } finally {
    client2.destroy();
    await again.stop();
  }
}, 60_000);
