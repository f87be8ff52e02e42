/**
 * `npx tsx bin/bench-bulk.ts [--items 100]`: bulk enrichment on the local stack, all on loopback — 100 mixed
 * items (email, professional URL, profile and phone, hits and misses) as one POST /enrich/bulk/ polled until
 * completed, beside the same 100 as single calls made one after another (a phone lookup: POST, then polled
 * until its job completes), and the physical reference of the same run: sequential raw GetItem on the same
 * DynamoDB Local. Writes bench-results/bulk.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../shared/adapters/aws.js';
import { accountsKeys } from '../shared/accounts/accounts.keys.js';
import { startLocalStack } from '../shared/local/stack.js';
import { startServices } from '../shared/local/services.js';
import { readDirectoryFile } from '../shared/directory/file.js';
import type { Person } from '../shared/directory/types.js';
import { publicApiClient } from '../shared/contract/client.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { items: { type: 'string', default: '100' } } });
const N = Number(values.items);
const results: Record<string, unknown> = { at: new Date().toISOString(), machine: { cores: cpus().length, load_before: loadavg().map((l) => Number(l.toFixed(2))) } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A loopback receiver that takes every delivery (204), so no webhook retry is left behind.
const hook = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
const webhookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;

const dir = mkdtempSync(join(tmpdir(), 'bench-bulk-'));
const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', throttleMultiplier: 100_000 });
try {
  const file = join(dir, 'directory.jsonl');
  await startServices({ root, stack, dataDir: null, directory: { file, people: 2000, seed: 13 } });
  const people: Person[] = [];
  for await (const r of readDirectoryFile(file)) if (r.type === 'person') people.push(r);
  const admin = { 'x-admin-token': 'bench', 'content-type': 'application/json' };
  const consoleCall = async (method: string, path: string, body?: unknown) => (await fetch(`${stack.consoleUrl}${path}`, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;
  const account = await consoleCall('POST', 'accounts/', { name: 'bench bulk', credits: 1_000_000 });
  const key = (await consoleCall('POST', `accounts/${account.id}/api-keys/`)).key as string;
  await consoleCall('POST', `accounts/${account.id}/webhook-secrets/`);
  const api = publicApiClient(new URL(stack.baseUrl).origin, key);

  // Mixed items: the four kinds in turn; every seventh names someone the directory does not hold.
  const items = Array.from({ length: N }, (_, i) => {
    const p = people[(i * 13) % people.length]!;
    const miss = i % 7 === 0;
    const url = miss ? `linkedin.com/in/nobody-here-${i}` : p.professional_url;
    const email = miss || !p.work_email ? `nobody${i}@nowhere.example` : p.work_email;
    switch (i % 4) {
      case 0: return { kind: 'email' as const, professional_url: url };
      case 1: return { kind: 'professional_url' as const, email };
      case 2: return { kind: 'professional_profile' as const, professional_url: url };
      default: return { kind: 'phone' as const, professional_url: url };
    }
  });

  // The physical reference: sequential raw GetItem on this DynamoDB Local, in this run.
  let t = performance.now();
  for (let i = 0; i < 500; i++) await documentClient().send(new GetCommand({ TableName: process.env.ACCOUNTS_TABLE_NAME!, Key: accountsKeys.account(account.id), ConsistentRead: true }));
  results.reference = { get_item_per_s: Math.round(500 / ((performance.now() - t) / 1000)) };

  // One bulk call, polled every 20 ms until completed.
  t = performance.now();
  const accepted = await api.POST('/api/public/v1/enrich/bulk/', { body: { items, webhook_url: webhookUrl } });
  if (!accepted.data) throw new Error(`bulk: ${accepted.response.status} ${JSON.stringify(accepted.error)}`);
  let polls = 0;
  for (;;) {
    polls++;
    const job = (await api.GET('/api/public/v1/enrich/bulk/{job_id}/', { params: { path: { job_id: accepted.data.id } } })).data!;
    if (job.status === 'completed') break;
    if (job.status !== 'pending' && job.status !== 'running') throw new Error(`bulk ended ${job.status}`);
    await sleep(20);
  }
  const bulkMs = performance.now() - t;

  // The same items one after another.
  const paths = { email: '/api/public/v1/enrich/email/', professional_url: '/api/public/v1/enrich/professional-url/', professional_profile: '/api/public/v1/enrich/professional-profile/' } as const;
  t = performance.now();
  for (const { kind, ...body } of items) {
    if (kind !== 'phone') {
      const r = await api.POST(paths[kind], { body: body as never });
      if (r.response.status !== 200 && r.response.status !== 404) throw new Error(`${kind}: ${r.response.status}`);
      continue;
    }
    const r = await api.POST('/api/public/v1/enrich/phone/', { body: { ...(body as { professional_url: string }), webhook_url: webhookUrl } });
    if (!r.data) throw new Error(`phone: ${r.response.status}`);
    for (;;) {
      const job = (await api.GET('/api/public/v1/enrich/phone/{job_id}/', { params: { path: { job_id: r.data.id } } })).data!;
      if (job.status === 'completed' || job.status === 'failed') break;
      await sleep(5);
    }
  }
  const singleMs = performance.now() - t;
  results.bulk = { items: N, ms: Math.round(bulkMs), polls, items_per_s: Number((N / (bulkMs / 1000)).toFixed(1)) };
  results.single = { calls: N, ms: Math.round(singleMs), calls_per_s: Number((N / (singleMs / 1000)).toFixed(1)) };
  results.ratio = Number((bulkMs / singleMs).toFixed(3));
  (results.machine as Record<string, unknown>).load_after = loadavg().map((l) => Number(l.toFixed(2)));
} finally {
  await stack.stop();
  hook.close();
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results/bulk.json'), JSON.stringify(results, null, 2));
console.log(JSON.stringify(results));
process.exit(0);
