import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { dynamoAccessKey } from '../../shared/local/processes.js';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The credit ledger (console top-ups and auto-recharge purchases) of an account, read from the running
 * service's DynamoDB Local as an operator would query the table: neither the public nor the console API
 * lists it, and the balance invariant needs the purchases. The JVM's port is found from the pid file the
 * local stack keeps in the data directory.
 */
export interface LedgerTotals {
  topups: number;
  purchases: number;
  entries: number;
}

function dynamoEndpoint(dataDir: string): string {
  const pidFile = join(dataDir, 'dynamodb', 'dynamodb-local.pid');
  if (!existsSync(pidFile)) throw new Error(`no DynamoDB Local pid file under ${dataDir}`);
  const pid = readFileSync(pidFile, 'utf8').trim();
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const port = args[args.indexOf('-port') + 1];
  if (!port || !/^\d+$/.test(port)) throw new Error(`DynamoDB Local (pid ${pid}) has no -port argument`);
  return `http://127.0.0.1:${port}`;
}

export async function ledgerTotals(dataDir: string, accountId: string): Promise<LedgerTotals> {
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint(dataDir), region: 'us-east-1', credentials: { accessKeyId: dynamoAccessKey(join(dataDir, 'dynamodb')), secretAccessKey: 'local' } });
  const totals: LedgerTotals = { topups: 0, purchases: 0, entries: 0 };
  try {
    let start: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: 'local-accounts',
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ledger)',
          ExpressionAttributeValues: { ':pk': { S: `ACCOUNT#${accountId}` }, ':ledger': { S: 'LEDGER#' } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const raw of page.Items ?? []) {
        const entry = unmarshall(raw) as { type: string; amount: number };
        totals.entries++;
        if (entry.type === 'purchase') totals.purchases += entry.amount;
        else if (entry.type === 'topup') totals.topups += entry.amount;
        else throw new Error(`unknown ledger entry type ${entry.type}`);
      }
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    client.destroy();
  }
  return totals;
}
